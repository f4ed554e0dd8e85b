import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inboxCommand } from '../../src/cli/commands/inboxCommand.js';
import { ledgerCommand } from '../../src/cli/commands/ledgerCommand.js';
import { createTransfer } from '../../src/ledger/createTransfer.js';
import { reverseTransfer } from '../../src/ledger/reverseTransfer.js';
import { runCli, runCliInProcess } from '../cli/runCli.js';
import { OWNER_A, OWNER_B, startTestApp, type TestApp } from '../helpers/startTestApp.js';

let t: TestApp;
let beforeReversal: string;
beforeAll(async () => {
  t = await startTestApp();
  const pool = t.onejob.pool;
  const { transfer } = await createTransfer(pool, {
    ownerId: OWNER_A.owner,
    id: 'c-1',
    debitAccount: 'wallet',
    creditAccount: 'shop',
    amount: 250,
    currency: 'USD',
  });
  beforeReversal = transfer.recordedAt;
  await reverseTransfer(pool, {
    ownerId: OWNER_A.owner,
    transferId: 'c-1',
    id: 'c-1-rev',
    reason: 'returned',
  });
  await pool.query(`INSERT INTO onejob.inbox_events (source, event_id, owner_id, job_id, response_status, response_body, payload_digest, deliveries)
    VALUES ('payments', 'evt_cli', '${OWNER_A.owner}', '0190a0b0-0000-7000-8000-000000000009', 202, '{"jobId":"0190a0b0-0000-7000-8000-000000000009"}', 'x', 3),
           ('payments', 'evt_other', '${OWNER_B.owner}', '0190a0b0-0000-7000-8000-00000000000a', 202, '{"jobId":"0190a0b0-0000-7000-8000-00000000000a"}', 'y', 1)`);
});
afterAll(async () => t?.close());

const env = () => ({ ONEJOB_URL: t.url, ONEJOB_TOKEN: OWNER_A.token });

/** Runs CLI commands in-process against the server, as owner A. */
const run = (args: string[]) =>
  runCliInProcess({ url: t.url, token: OWNER_A.token }, [ledgerCommand, inboxCommand], args);

describe('ledger and inbox commands, through the HTTP API', { timeout: 120_000 }, () => {
  it("onejob ledger balance reads the token owner's balance now and as of an earlier instant", async () => {
    const spawned = await runCli(['ledger', 'balance', 'shop', '--json'], env());
    expect(spawned.code, spawned.stderr).toBe(0);
    expect(JSON.parse(spawned.stdout)).toMatchObject({
      account: 'shop',
      currency: 'USD',
      balance: 0,
      debits: 250,
      credits: 250,
    });
    const then = JSON.parse(await run(['ledger', 'balance', 'shop', '--as-of', beforeReversal, '--json']));
    expect(then).toMatchObject({ balance: 250 });
    const other = await runCli(['ledger', 'balance', 'shop'], {
      ONEJOB_URL: t.url,
      ONEJOB_TOKEN: OWNER_B.token,
    });
    expect(other.code).toBe(1);
    expect(other.stderr).toMatch(/\(404\)/);
    expect(other.stderr).toMatch(/onejob ledger accounts/);
  });

  it("onejob ledger accounts lists only the token owner's accounts, by name, with their balances", async () => {
    const text = await run(['ledger', 'accounts']);
    expect(text).toMatch(/^account +currency +balance +debits +credits +held +available$/m);
    expect(text).toMatch(/^shop +USD +0 +250 +250 +0 +0$/m);
    expect(text).toMatch(/^wallet +USD +0 +250 +250 +0 +0$/m);
    const page = JSON.parse(await run(['ledger', 'accounts', '--as-of', beforeReversal, '--json']));
    expect(page.items).toEqual([
      expect.objectContaining({ account: 'shop', balance: 250 }),
      expect.objectContaining({ account: 'wallet', balance: -250 }),
    ]);
    const other = await runCli(['ledger', 'accounts', '--json'], {
      ONEJOB_URL: t.url,
      ONEJOB_TOKEN: OWNER_B.token,
    });
    expect(other.code, other.stderr).toBe(0);
    expect(JSON.parse(other.stdout).items).toEqual([]);
  });

  it("onejob ledger entries lists the original and its reversal; inbox list shows the owner's events with their delivery count", async () => {
    const text = await run(['ledger', 'entries', 'wallet']);
    expect(text).toMatch(/c-1 .*debit .*-250 .*shop .*reversed by c-1-rev/);
    expect(text).toMatch(/c-1-rev .*credit .*250 .*shop .*reverses c-1 .*returned/);
    const events = JSON.parse(await run(['inbox', 'list', '--json']));
    expect(events).toEqual([
      expect.objectContaining({ source: 'payments', eventId: 'evt_cli', deliveries: 3 }),
    ]);
  });
});
