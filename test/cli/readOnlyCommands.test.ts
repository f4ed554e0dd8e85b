import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTransfer } from '../../src/ledger/createTransfer.js';
import { ADMIN_TOKEN, OWNER_A, startTestApp, type TestApp } from '../helpers/startTestApp.js';
import { runCli } from './runCli.js';

let t: TestApp;
let empty: string;
beforeAll(async () => {
  t = await startTestApp();
  empty = await mkdtemp(join(tmpdir(), 'onejob-cli-empty-'));
  await createTransfer(t.onejob.pool, {
    ownerId: OWNER_A.owner,
    id: 'ro-1',
    debitAccount: 'wallet',
    creditAccount: 'revenue',
    amount: 700,
    currency: 'USD',
  });
});
afterAll(async () => {
  await t?.close();
  await rm(empty, { recursive: true, force: true });
});

const READ_ONLY = [
  ['outbox', 'backlog'],
  ['ledger', 'balance', 'revenue'],
  ['inbox', 'list'],
  ['providers', 'list'],
];
// No server named, no token, and a HOME of its own: nothing to find by accident.
const nothing = () => ({
  HOME: empty,
  ONEJOB_URL: undefined,
  ONEJOB_TOKEN: undefined,
  ONEJOB_ADMIN_TOKEN: undefined,
  DATABASE_URL: undefined,
});

describe('the CLI outside a project', { timeout: 180_000 }, () => {
  it('read-only commands read the running server through its API and create no .onejob in the folder', async () => {
    const env = {
      ...nothing(),
      ONEJOB_URL: t.url,
      ONEJOB_TOKEN: OWNER_A.token,
      ONEJOB_ADMIN_TOKEN: ADMIN_TOKEN,
    };
    const results = await Promise.all(READ_ONLY.map((args) => runCli(args, env, empty)));
    for (const [i, r] of results.entries()) expect(r.code, `${READ_ONLY[i]!.join(' ')}: ${r.stderr}`).toBe(0);
    expect(results[1]!.stdout).toMatch(/revenue\s+USD\s+700/);
    // The server's providers (the built-in config), not a local copy.
    expect(results[3]!.stdout).toMatch(/provider\s+kind/);
    expect(existsSync(join(empty, '.onejob'))).toBe(false);
  });

  it('with no URL and no dev token file, each says how to point it at a server and exits non-zero', async () => {
    const results = await Promise.all(READ_ONLY.map((args) => runCli(args, nothing(), empty)));
    for (const r of results) {
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/export ONEJOB_URL=/);
      expect(r.stderr).toMatch(/export ONEJOB_TOKEN=/);
      expect(r.stdout).toBe('');
    }
    expect(existsSync(join(empty, '.onejob'))).toBe(false);
  });

  it('migrate and archive without DATABASE_URL say how to set it instead of creating a database', async () => {
    const results = await Promise.all([
      runCli(['migrate'], nothing(), empty),
      runCli(['archive', '--finished-before', '30d'], nothing(), empty),
    ]);
    for (const r of results) {
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/export DATABASE_URL=/);
    }
    expect(existsSync(join(empty, '.onejob'))).toBe(false);
  });

  it('help marks required options, and bench --help shows a usage line', async () => {
    const [abandon, verify, bench] = await Promise.all([
      runCli(['jobs', 'abandon', '--help'], nothing(), empty),
      runCli(['providers', 'verify', '--help'], nothing(), empty),
      runCli(['bench', '--help'], nothing(), empty),
    ]);
    expect(abandon.stdout).toMatch(/-r, --reason <text>\s+\(required\)/);
    expect(verify.stdout).toMatch(/-o, --operation <operation>\s+\(required\)/);
    expect(bench.stdout.split('\n')[0]).toBe('Usage: onejob bench [options]');
  });
});
