import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OWNER_A, OWNER_B, postJob, startTestApp, type TestApp } from '../helpers/startTestApp.js';
import { runCli } from './runCli.js';

let t: TestApp;
let env: Record<string, string>;
beforeAll(async () => {
  t = await startTestApp();
  env = { ONEJOB_URL: t.url, ONEJOB_TOKEN: OWNER_A.token };
});
afterAll(async () => t?.close());

describe('onejob jobs', { timeout: 180_000 }, () => {
  it('create twice with one --key prints one job id; the second run says replayed', async () => {
    const first = await runCli(
      ['jobs', 'create', 'charge', '{"amount":1999}', '--key', 'cli-double', '--json'],
      env,
    );
    expect(first.code).toBe(0);
    const job = JSON.parse(first.stdout) as { id: string; state: string };
    const second = await runCli(['jobs', 'create', 'charge', '{"amount":1999}', '--key', 'cli-double'], env);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain(`job ${job.id}`);
    expect(second.stdout).toMatch(/replayed/);
    const { rows } = await t.onejob.pool.query(
      `SELECT id FROM onejob.jobs WHERE idempotency_key = 'cli-double'`,
    );
    expect(rows).toEqual([{ id: job.id }]);
  });

  it('--run-at passes the instant through; the job shows it; a non-instant exits 1 before any request', async () => {
    const r = await runCli(
      [
        'jobs',
        'create',
        'charge',
        '{"amount":7}',
        '--key',
        'cli-run-at',
        '--run-at',
        '2035-03-04T06:07:08+01:00',
      ],
      env,
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/run at\s+2035-03-04T05:07:08\.000Z/);
    const { rows } = await t.onejob.pool.query(
      `SELECT run_at FROM onejob.jobs WHERE idempotency_key = 'cli-run-at'`,
    );
    expect(rows[0].run_at.toISOString()).toBe('2035-03-04T05:07:08.000Z');
    const before = await t.onejob.pool.query('SELECT count(*)::int AS n FROM onejob.jobs');
    const bad = await runCli(
      [
        'jobs',
        'create',
        'charge',
        '{"amount":7}',
        '--key',
        'cli-run-at-bad',
        '--run-at',
        '2035-02-30T00:00:00Z',
      ],
      env,
    );
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/--run-at/);
    const after = await t.onejob.pool.query('SELECT count(*)::int AS n FROM onejob.jobs');
    expect(after.rows[0].n).toBe(before.rows[0].n);
  });

  it('a reused key with another input exits 1 with the problem code on stderr', async () => {
    await postJob(t, 'cli-scope', { operation: 'charge', input: { amount: 1 } });
    const r = await runCli(['jobs', 'create', 'charge', '{"amount":2}', '--key', 'cli-scope'], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/idempotency_key_reused \(409\)/);
    expect(r.stdout).toBe('');
  });

  it('list shows a table by default and JSON with --json, filtered by key', async () => {
    await postJob(t, 'cli-list', { operation: 'summarize', input: { text: 'hi' } });
    const table = await runCli(['jobs', 'list', '--operation', 'summarize'], env);
    expect(table.code).toBe(0);
    expect(table.stdout.split('\n')[0]).toMatch(/^ID\s+OPERATION\s+STATE\s+ATTEMPTS\s+KEY\s+CREATED$/);
    expect(table.stdout).toContain('cli-list');
    const json = await runCli(['jobs', 'list', '--key', 'cli-list', '--json'], env);
    const page = JSON.parse(json.stdout) as { items: { idempotencyKey: string }[]; nextCursor: null };
    expect(page.items.map((j) => j.idempotencyKey)).toEqual(['cli-list']);
  });

  it('get and wait read the job; another owner gets job_not_found', async () => {
    const created = (await (
      await postJob(t, 'cli-get', { operation: 'charge', input: { amount: 5 } })
    ).json()) as { id: string };
    const got = await runCli(['jobs', 'get', created.id], env);
    expect(got.stdout).toMatch(new RegExp(`job ${created.id}[\\s\\S]*state\\s+queued`));
    const waited = await runCli(['jobs', 'wait', created.id, '--timeout', '200', '--json'], env);
    expect(JSON.parse(waited.stdout).id).toBe(created.id);
    const other = await runCli(['jobs', 'get', created.id], { ...env, ONEJOB_TOKEN: OWNER_B.token });
    expect(other.code).toBe(1);
    expect(other.stderr).toMatch(/job_not_found \(404\)/);
  });

  it("get shows each attempt's cost and the job's total, losers included", async () => {
    const created = (await (
      await postJob(t, 'cli-costs', { operation: 'summarize', input: { text: 'hello' } })
    ).json()) as { id: string };
    await t.onejob.pool.query(
      `INSERT INTO onejob.attempts (id, job_id, owner_id, n, provider, exclusive, state, job_version, finished_at, cost_micros)
       SELECT gen_random_uuid(), j.id, j.owner_id, a.n, a.provider, false, a.state, 1, now(), a.cost
         FROM onejob.jobs j, (VALUES (1, 'sim-a', 'lost_race', 1200), (2, 'sim-b', 'failed', NULL::bigint), (3, 'sim-b', 'succeeded', 800)) AS a(n, provider, state, cost)
        WHERE j.id = $1`,
      [created.id],
    );
    const got = await runCli(['jobs', 'get', created.id], env);
    expect(got.code, got.stderr).toBe(0);
    expect(got.stdout).toMatch(/cost\s+2,000 micros over 3 attempts/);
    expect(got.stdout).toMatch(/COST \(MICROS\)/);
    expect(got.stdout).toMatch(/^1\s+sim-a\s+lost_race\s.*\s1,200(\s|$)/m);
    expect(got.stdout).toMatch(/^2\s+sim-b\s+failed\s+\S+\s+\S+\s+\S+\s+-/m);
    expect(got.stdout).toMatch(/^3\s+sim-b\s+succeeded\s.*\s800(\s|$)/m);
  });

  it('without ONEJOB_TOKEN the dev token file in .onejob/api-key is used', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'onejob-cli-'));
    await mkdir(join(dir, '.onejob'));
    await writeFile(join(dir, '.onejob', 'api-key'), `${OWNER_B.token}\n`);
    const r = await runCli(
      ['jobs', 'create', 'charge', '{"amount":8}', '--key', 'cli-devtoken', '--json'],
      { ONEJOB_URL: t.url },
      dir,
    );
    expect(r.code).toBe(0);
    const { rows } = await t.onejob.pool.query(
      `SELECT owner_id FROM onejob.jobs WHERE idempotency_key = 'cli-devtoken'`,
    );
    expect(rows).toEqual([{ owner_id: OWNER_B.owner }]);
  });
});
