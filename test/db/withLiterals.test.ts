import { describe, expect, it } from 'vitest';
import { withLiterals } from '../../src/db/withLiterals.js';
import { sessionPerFile } from '../helpers/sessionPerFile.js';

const client = sessionPerFile();

// Strings that break naive quoting: quotes, backslashes (which make escapeLiteral use E''),
// a statement terminator with a second statement after it, a placeholder-looking text.
const HOSTILE = [`it's`, `a\\'; DROP TABLE x; --`, `$1 $2`, `"{}"`, `é ✓`, ''];

describe('withLiterals', () => {
  it('a value written in reads back from PostgreSQL exactly as the bound value would', async () => {
    const sql =
      'SELECT $1::text AS s, $2::uuid[] AS ids, $3::jsonb AS j, $4::int AS n, $5::float8 AS f, $6::boolean AS b, $7::text AS nothing';
    const values = [
      HOSTILE[1]!,
      ['00000000-0000-7000-8000-000000000001', '00000000-0000-7000-8000-000000000002'],
      { quote: HOSTILE[0], nested: { list: HOSTILE } },
      -24,
      0.5,
      true,
      null,
    ] as const;
    const bound = await client().query(sql, [...values]);
    const written = await client().query(withLiterals(sql, values));
    expect(written.rows).toEqual(bound.rows);
    expect(written.rows[0].s).toBe(HOSTILE[1]);
  });

  it('every hostile string is one literal: the query string stays one statement', async () => {
    for (const s of HOSTILE) {
      const { rows } = await client().query(
        withLiterals('SELECT $1::text AS s, $2::text[] AS a', [s, [s, s]]),
      );
      expect(rows).toEqual([{ s, a: [s, s] }]);
    }
  });

  it('an empty array keeps the type the statement casts it to', async () => {
    const { rows } = await client().query(withLiterals('SELECT cardinality($1::uuid[]) AS n', [[]]));
    expect(rows[0].n).toBe(0);
  });

  it('refuses a placeholder without a value, a value no placeholder uses, and a number that is not finite', () => {
    expect(() => withLiterals('SELECT $1, $2', ['a'])).toThrow(/no value for \$2/);
    expect(() => withLiterals('SELECT $1', ['a', 'b'])).toThrow(/not used/);
    expect(() => withLiterals('SELECT $1', [Number.NaN])).toThrow(/finite/);
  });
});
