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

/** Runs warnIfAutovacuumOff against this server, as if its autovacuum setting were `setting`. */
async function warningWith(setting: 'on' | 'off'): Promise<{ warned: boolean; lines: string[] }> {
  const lines: string[] = [];
  const logger = pino({ level: 'warn' }, { write: (line: string) => lines.push(line) });
  let asked = false;
  // The statement runs on PostgreSQL as written, the server's setting swapped for `setting`:
  // autovacuum can only be changed for the whole server, so the branch this machine does
  // not take is reached this way.
  const db = {
    query: (sql: string) => {
      asked = sql.includes("current_setting('autovacuum')");
      return pool.query(sql.replace("current_setting('autovacuum')", `'${setting}'::text`));
    },
  } as unknown as pg.Pool;
  const warned = await warnIfAutovacuumOff(db, logger);
  expect(asked, 'the warning reads the server setting').toBe(true);
  return { warned, lines };
}

describe('autovacuum warning', () => {
  it('follows what the server reports', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => lines.push(line) });
    const { rows } = await pool.query<{ autovacuum: string }>('SHOW autovacuum');
    const off = rows[0]!.autovacuum === 'off';
    expect(await warnIfAutovacuumOff(pool, logger)).toBe(off);
    expect(lines).toHaveLength(off ? 1 : 0);
  });

  it('warns once, naming ANALYZE, when autovacuum is off', async () => {
    const { warned, lines } = await warningWith('off');
    expect(warned).toBe(true);
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!).msg).toMatch(/autovacuum is off: run ANALYZE on schema onejob/);
  });

  it('says nothing when autovacuum is on', async () => {
    const { warned, lines } = await warningWith('on');
    expect(warned).toBe(false);
    expect(lines).toEqual([]);
  });
});
