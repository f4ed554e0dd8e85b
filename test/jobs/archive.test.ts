import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settleLongAgo } from '../helpers/settleLongAgo.js';
import { postJob, startTestApp, type TestApp } from '../helpers/startTestApp.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

const finish = (id: string, daysAgo: number) => settleLongAgo(t.onejob.pool, id, daysAgo);

describe('archival keeps keys answering', () => {
  it('after archival, replaying an archived key returns the original job id; a different body is still a 409', async () => {
    const body = { operation: 'charge', input: { amount: 4200 } };
    const created = (await (await postJob(t, 'months-old', body)).json()) as { id: string };
    await finish(created.id, 90);
    const { archived } = await t.onejob.jobs.archive(new Date(Date.now() - 30 * 86_400_000));
    expect(archived).toBeGreaterThanOrEqual(1);
    const live = await t.onejob.pool.query('SELECT 1 FROM onejob.jobs WHERE id = $1', [created.id]);
    expect(live.rowCount).toBe(0);

    const replay = await postJob(t, 'months-old', body);
    expect(replay.status).toBe(202);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    const job = (await replay.json()) as { id: string; state: string; result: unknown; archivedAt?: string };
    expect(job.id).toBe(created.id);
    expect(job.state).toBe('succeeded');
    expect(job.result).toEqual({ charged: true });
    expect(job.archivedAt).toBeDefined();

    const conflict = await postJob(t, 'months-old', { operation: 'charge', input: { amount: 1 } });
    expect(conflict.status).toBe(409);
    expect(((await conflict.json()) as { code: string }).code).toBe('idempotency_key_reused');

    const stillNoJob = await t.onejob.pool.query(
      `SELECT 1 FROM onejob.jobs WHERE idempotency_key = 'months-old'`,
    );
    expect(stillNoJob.rowCount).toBe(0);
    const read = await t.request(`/v1/jobs/${created.id}`);
    expect(read.status).toBe(200);
  });

  it('retries racing the archiver all get the one original job', async () => {
    const body = { operation: 'charge', input: { amount: 77 } };
    const created = (await (await postJob(t, 'racing-archive', body)).json()) as { id: string };
    await finish(created.id, 60);
    const [archive, ...replays] = await Promise.all([
      t.onejob.jobs.archive(new Date(Date.now() - 30 * 86_400_000)),
      ...Array.from({ length: 30 }, () => postJob(t, 'racing-archive', body)),
    ]);
    expect(archive.archived).toBeGreaterThanOrEqual(0);
    for (const r of replays) {
      expect(r.status).toBe(202);
      expect(((await r.json()) as { id: string }).id).toBe(created.id);
    }
    const rows = await t.onejob.pool.query(
      `SELECT (SELECT count(*) FROM onejob.jobs WHERE idempotency_key = 'racing-archive')::int
            + (SELECT count(*) FROM onejob.job_tombstones WHERE idempotency_key = 'racing-archive')::int AS n`,
    );
    expect(rows.rows[0].n).toBe(1);
  });

  it('the database refuses a new job under an archived key even when the application forgets to look', async () => {
    const body = { operation: 'charge', input: { amount: 5 } };
    const created = (await (await postJob(t, 'tomb-guard', body)).json()) as { id: string };
    await finish(created.id, 60);
    await t.onejob.jobs.archive(new Date(Date.now() - 30 * 86_400_000));
    await expect(
      t.onejob.pool.query(
        `INSERT INTO onejob.jobs (id, owner_id, idempotency_key, fingerprint, operation, input)
         VALUES (gen_random_uuid(), 'owner-a', 'tomb-guard', 'x', 'charge', '{}')`,
      ),
    ).rejects.toMatchObject({ code: 'OJ001' });
  });

  it('unfinished and recent jobs are not archived', async () => {
    const queued = (await (
      await postJob(t, 'still-queued', { operation: 'charge', input: { amount: 1 } })
    ).json()) as { id: string };
    const recent = (await (
      await postJob(t, 'recent', { operation: 'charge', input: { amount: 1 } })
    ).json()) as { id: string };
    await finish(recent.id, 1);
    await t.onejob.jobs.archive(new Date(Date.now() - 30 * 86_400_000));
    const { rowCount } = await t.onejob.pool.query('SELECT 1 FROM onejob.jobs WHERE id = ANY($1)', [
      [queued.id, recent.id],
    ]);
    expect(rowCount).toBe(2);
  });
});
