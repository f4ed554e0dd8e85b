// A statement with its parameters written in as literals, for the few places that send
// several statements in one simple query: planner settings that must hold while one
// statement is planned, sent with it in one round trip. The extended protocol (the
// only one that takes parameters) carries one statement per message, so those places
// cannot bind. Every value is quoted by the driver's own escapeLiteral; the SQL keeps
// its casts (`$1::uuid[]`), so a value's type is decided by the statement, as when bound.
import pg from 'pg';

/** What withLiterals writes in: scalars, arrays of scalars, and objects as JSON text. */
export type LiteralValue =
  | string
  | number
  | boolean
  | null
  | readonly (string | number | null)[]
  | Record<string, unknown>;

function literal(value: LiteralValue): string {
  if (value === null) return 'NULL';
  if (typeof value === 'string') return pg.escapeLiteral(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new RangeError(`not a finite number: ${value}`);
    return `(${String(value)})`;
  }
  if (Array.isArray(value)) return `ARRAY[${value.map((v) => literal(v)).join(', ')}]`;
  return pg.escapeLiteral(JSON.stringify(value));
}

/**
 * `text` with `$1`, `$2`... replaced by the literals of `values`. Refuses a placeholder
 * without a value, and a value no placeholder uses (a sign the two lists drifted apart).
 */
export function withLiterals(text: string, values: readonly LiteralValue[]): string {
  const used = new Set<number>();
  const out = text.replace(/\$(\d+)/g, (_, n: string) => {
    const i = Number(n) - 1;
    if (i < 0 || i >= values.length) throw new RangeError(`no value for $${n}`);
    used.add(i);
    return literal(values[i]!);
  });
  if (used.size !== values.length) throw new RangeError(`${values.length - used.size} value(s) not used`);
  return out;
}
