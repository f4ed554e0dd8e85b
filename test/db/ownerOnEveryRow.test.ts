// Distribution by owner puts a job and everything about it on one shard only if every row
// written about the job carries the job's owner. Each write path is exercised here (intake
// alone and batched, the worker's claim and completion, an attempt started by hand, a
// cancel, archival), and then every row is compared with its job's owner.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OnejobConfig } from '../../src/config/types.js';
import { defineOperation } from '../../src/operations/defineOperation.js';
import { FAST_WORKER, startLibrary } from '../library/libraryKit.js';

const ping = defineOperation('ping', {
  inputSchema: { type: 'object', properties: { n: { type: 'integer' } } },
  attemptTimeoutMs: 5_000,
  run: (ctx) => ({ pong: ctx.input.n ?? 0 }),
});

const config: OnejobConfig = {
  providers: {},
  operations: {},
  worker: FAST_WORKER,
  outbox: { publishers: [{ kind: 'log' }] },
};

let lib: Awaited<ReturnType<typeof startLibrary<[typeof ping]>>>;
beforeAll(async () => {
  lib = await startLibrary([ping], { config });
});
afterAll(async () => {
  await lib?.close();
});

// Rows whose owner differs from the owner of the job they are about, per table.
const MISMATCHES_SQL = `
WITH owners AS (
  SELECT id, owner_id FROM onejob.jobs
  UNION ALL SELECT job_id, owner_id FROM onejob.jobs_archive
)
SELECT 'attempts' AS t, a.id::text FROM onejob.attempts a JOIN owners o ON o.id = a.job_id WHERE a.owner_id <> o.owner_id
UNION ALL
SELECT 'job_events', e.id::text FROM onejob.job_events e JOIN owners o ON o.id = e.job_id WHERE e.owner_id <> o.owner_id
UNION ALL
SELECT 'outbox', x.id::text FROM onejob.outbox x JOIN owners o ON o.id::text = x.subject WHERE x.owner_id <> o.owner_id
UNION ALL
SELECT 'outbox_deliveries', d.event_id::text FROM onejob.outbox_deliveries d JOIN owners o ON o.id::text = d.subject
  WHERE d.owner_id <> o.owner_id
UNION ALL
SELECT 'job_tombstones', t.job_id::text FROM onejob.job_tombstones t JOIN owners o ON o.id = t.job_id
  WHERE t.owner_id <> o.owner_id`;

describe("every row about a job carries the job's owner", () => {
  it('through intake, claim, completion, a started attempt, a cancel and archival', async () => {
    const { onejob } = lib;
    await onejob.start({ roles: ['worker', 'relay'] });
    // Intake: one alone, then a burst the group commit writes as batches.
    const owner = (i: number) => (i % 2 ? 'alice' : 'bob');
    const first = await onejob.jobs.create({
      ownerId: owner(0),
      idempotencyKey: 'k-0',
      operation: 'ping',
      input: {},
    });
    const burst = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        onejob.jobs.create({
          ownerId: owner(i + 1),
          idempotencyKey: `k-${i + 1}`,
          operation: 'ping',
          input: { n: i },
        }),
      ),
    );
    for (const [i, { job }] of [first, ...burst].entries())
      expect((await onejob.jobs.wait(owner(i), job.id, 20_000)).state).toBe('succeeded');
    await onejob.stop();

    // An attempt started by hand, and a cancel (an event recorded in the caller's transaction).
    const manual = await onejob.jobs.create({
      ownerId: 'carol',
      idempotencyKey: 'm',
      operation: 'ping',
      input: {},
    });
    await onejob.attempts.start('carol', manual.job.id);
    const cancelled = await onejob.jobs.create({
      ownerId: 'dave',
      idempotencyKey: 'c',
      operation: 'ping',
      input: {},
    });
    await onejob.attempts.cancel('dave', cancelled.job.id);
    // Archival moves finished jobs out and leaves their tombstones and events behind.
    expect((await onejob.jobs.archive(new Date(Date.now() + 60_000))).archived).toBeGreaterThan(0);

    const { rows: counts } = await onejob.pool.query<{ t: string; n: number }>(
      `SELECT 'attempts' AS t, count(*)::int AS n FROM onejob.attempts
       UNION ALL SELECT 'job_events', count(*)::int FROM onejob.job_events
       UNION ALL SELECT 'outbox', count(*)::int FROM onejob.outbox
       UNION ALL SELECT 'outbox_deliveries', count(*)::int FROM onejob.outbox_deliveries
       UNION ALL SELECT 'job_tombstones', count(*)::int FROM onejob.job_tombstones`,
    );
    for (const c of counts) expect(c.n, c.t).toBeGreaterThan(0);
    const { rows } = await onejob.pool.query(MISMATCHES_SQL);
    expect(rows).toEqual([]);
  });
});
