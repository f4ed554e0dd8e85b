import { Command } from 'commander';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { inboxCommand } from '../../src/cli/commands/inboxCommand.js';
import { ledgerCommand } from '../../src/cli/commands/ledgerCommand.js';
import { createTransfer } from '../../src/ledger/createTransfer.js';
import { reverseTransfer } from '../../src/ledger/reverseTransfer.js';
import { spawnOnejob } from '../helpers/spawnOnejob.js';
import { createTestDatabase, type TestDatabase } from '../helpers/testDatabase.js';

let db: TestDatabase;
let pool: pg.Pool;
let beforeReversal: string;
beforeAll(async () => {
  db = await createTestDatabase();
  pool = new pg.Pool({ connectionString: db.url, max: 2 });
  const { transfer } = await createTransfer(pool, {
    ownerId: 'cli',
    id: 'c-1',
    debitAccount: 'wallet',
    creditAccount: 'shop',
    amount: 250,
    currency: 'USD',
  });
  beforeReversal = transfer.recordedAt;
  await reverseTransfer(pool, { ownerId: 'cli', transferId: 'c-1', id: 'c-1-rev', reason: 'returned' });
  await pool.query(`INSERT INTO onejob.inbox_events (source, event_id, owner_id, job_id, response_status, response_body, payload_digest, deliveries)
    VALUES ('payments', 'evt_cli', 'acme', '0190a0b0-0000-7000-8000-000000000009', 202, '{"jobId":"0190a0b0-0000-7000-8000-000000000009"}', 'x', 3)`);
});
afterAll(async () => {
  await pool?.end();
  await db?.drop();
});

/** The real `onejob` binary from source: proves the commands are registered. */
async function spawned(args: string[]): Promise<string> {
  const p = spawnOnejob(args, { DATABASE_URL: db.url, LOG_LEVEL: 'warn' });
  const code = await p.exited;
  expect(code, p.output()).toBe(0);
  return p.output();
}

/** The same commands in-process (a child per command costs seconds). */
async function run(args: string[]): Promise<string> {
  const previous = process.env.DATABASE_URL;
  process.env.DATABASE_URL = db.url;
  let out = '';
  const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    out += chunk.toString();
    return true;
  });
  try {
    const program = new Command('onejob').exitOverride();
    ledgerCommand(program);
    inboxCommand(program);
    await program.parseAsync(args, { from: 'user' });
  } finally {
    write.mockRestore();
    if (previous === undefined) delete process.env.DATABASE_URL;
    else process.env.DATABASE_URL = previous;
  }
  return out;
}

describe('ledger and inbox commands', () => {
  it('onejob ledger balance reads the balance now and as of an earlier instant', async () => {
    const now = JSON.parse(await spawned(['ledger', 'balance', 'shop', '--owner', 'cli', '--json']));
    expect(now).toMatchObject({ account: 'shop', currency: 'USD', balance: 0, debits: 250, credits: 250 });
    const then = JSON.parse(
      await run(['ledger', 'balance', 'shop', '--owner', 'cli', '--as-of', beforeReversal, '--json']),
    );
    expect(then).toMatchObject({ balance: 250, asOf: beforeReversal });
  });

  it('onejob ledger entries lists the original and its reversal; inbox list shows the delivery count', async () => {
    const text = await run(['ledger', 'entries', 'wallet', '--owner', 'cli']);
    expect(text).toMatch(/c-1 .*debit .*-250 .*shop .*reversed by c-1-rev/);
    expect(text).toMatch(/c-1-rev .*credit .*250 .*shop .*reverses c-1 .*returned/);
    const events = JSON.parse(await run(['inbox', 'list', '--json']));
    expect(events).toEqual([
      expect.objectContaining({ source: 'payments', eventId: 'evt_cli', deliveries: 3 }),
    ]);
  });
});
