// What a tenant writes (a ledger reference, a job's input) is shown by the CLI, never
// obeyed by the operator's terminal: C0, DEL and C1 control characters print as \xNN.
import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { jobsCommand } from '../../src/cli/commands/jobsCommand.js';
import { ledgerCommand } from '../../src/cli/commands/ledgerCommand.js';
import { escapeControls } from '../../src/cli/terminalText.js';
import { createTransfer } from '../../src/ledger/createTransfer.js';
import { OWNER_A, postJob, startTestApp, type TestApp } from '../helpers/startTestApp.js';

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

/** Runs CLI commands in-process against the server, returning what they printed. */
async function run(args: string[]): Promise<string> {
  const saved = { url: process.env.ONEJOB_URL, token: process.env.ONEJOB_TOKEN };
  process.env.ONEJOB_URL = t.url;
  process.env.ONEJOB_TOKEN = OWNER_A.token;
  let out = '';
  const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    out += chunk.toString();
    return true;
  });
  try {
    const program = new Command('onejob').exitOverride();
    ledgerCommand(program);
    jobsCommand(program);
    await program.parseAsync(args, { from: 'user' });
  } finally {
    write.mockRestore();
    for (const [key, value] of [
      ['ONEJOB_URL', saved.url],
      ['ONEJOB_TOKEN', saved.token],
    ] as const) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
  return out;
}

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
