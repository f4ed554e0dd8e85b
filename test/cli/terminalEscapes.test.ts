import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobsCommand } from '../../src/cli/commands/jobsCommand.js';
import { ledgerCommand } from '../../src/cli/commands/ledgerCommand.js';
import { escapeControls } from '../../src/cli/terminalText.js';
import { createTransfer } from '../../src/ledger/createTransfer.js';
import { OWNER_A, postJob, startTestApp, type TestApp } from '../helpers/startTestApp.js';
import { runCliInProcess } from './runCli.js';

// Clears the screen, retitles the window, rings the bell; then a C1 CSI and a DEL.
const HOSTILE = '\u001b[2J\u001b]0;pwned\u0007 \u009b31m \u007f';
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it looks for.
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;

let t: TestApp;
let jobId: string;
beforeAll(async () => {
  t = await startTestApp();
  await createTransfer(t.onejob.pool, {
    ownerId: OWNER_A.owner,
    id: 'evil-1',
    debitAccount: 'wallet',
    creditAccount: 'shop',
    amount: 5,
    currency: 'USD',
    reference: HOSTILE,
  });
  const res = await postJob(t, 'evil-job', { operation: 'charge', input: { amount: 1, note: HOSTILE } });
  jobId = ((await res.json()) as { id: string }).id;
});
afterAll(async () => t?.close());

/** Runs CLI commands in-process against the server, as owner A. */
const run = (args: string[]) =>
  runCliInProcess({ url: t.url, token: OWNER_A.token }, [ledgerCommand, jobsCommand], args);

describe('CLI output and terminal control characters', () => {
  it('a ledger reference full of escape sequences prints as visible \\xNN in the entries table', async () => {
    const out = await run(['ledger', 'entries', 'shop']);
    expect(out).not.toMatch(RAW_CONTROL);
    expect(out).toContain('\\x1b[2J\\x1b]0;pwned\\x07 \\x9b31m \\x7f');
  });

  it('JSON output carries no raw DEL or C1 character either, and still parses to the same value', async () => {
    const out = await run(['ledger', 'entries', 'shop', '--json']);
    expect(out).not.toMatch(RAW_CONTROL);
    const page = JSON.parse(out) as { items: { reference: string }[] };
    expect(page.items.map((e) => e.reference)).toContain(HOSTILE);
  });

  it("a job's input with escape sequences prints escaped in jobs get and jobs list", async () => {
    for (const args of [
      ['jobs', 'get', jobId],
      ['jobs', 'list'],
    ]) {
      const out = await run(args);
      expect(out, args.join(' ')).not.toMatch(RAW_CONTROL);
    }
  });

  it('escapeControls shows every C0, DEL and C1 character, newline included, and leaves other text alone', () => {
    expect(escapeControls('a\nb\tc\u0000\u001f\u007f\u0080\u009f é😀')).toBe(
      'a\\x0ab\\x09c\\x00\\x1f\\x7f\\x80\\x9f é😀',
    );
  });
});
