// The start-up warning follows what the server reports, whatever this machine's setting is.
import pg from 'pg';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { warnIfAutovacuumOff } from '../../src/db/warnIfAutovacuumOff.js';
import { createEmptyDatabase, type TestDatabase } from '../helpers/testDatabase.js';

let db: TestDatabase;
let pool: pg.Pool;
beforeAll(async () => {
  db = await createEmptyDatabase();
  pool = new pg.Pool({ connectionString: db.url, max: 1 });
});
afterAll(async () => {
  await pool?.end();
  await db?.drop();
});

describe('autovacuum warning', () => {
  it('warns, naming ANALYZE, exactly when the server has autovacuum off', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => lines.push(line) });
    const { rows } = await pool.query<{ autovacuum: string }>('SHOW autovacuum');
    const off = rows[0]!.autovacuum === 'off';
    expect(await warnIfAutovacuumOff(pool, logger)).toBe(off);
    expect(lines).toHaveLength(off ? 1 : 0);
    if (off) expect(JSON.parse(lines[0]!).msg).toMatch(/autovacuum is off: run ANALYZE on schema onejob/);
  });
});
