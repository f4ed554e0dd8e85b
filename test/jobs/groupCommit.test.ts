// Group commit of intake: concurrent creates share one batch statement, and each request
// still gets exactly the answer it would have had alone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isOnejobError } from '../../src/errors/OnejobError.js';
import type { CreateJobRequest, CreateJobResult } from '../../src/jobs/createJob.js';
import { createJobBatcher } from '../../src/jobs/createJobBatcher.js';
import { CREATE_BATCH_SQL, CREATE_BATCH_STATEMENT, createJobsBatch } from '../../src/jobs/createJobsBatch.js';
import { FIND_BY_KEYS_STATEMENT } from '../../src/jobs/findJobsByKey.js';
import { fingerprint } from '../../src/jobs/fingerprint.js';
import { prepareCreate } from '../../src/jobs/prepareCreate.js';
import {
  type BatchCounts,
  intakeBatches,
  intakeBatchesSince,
  timedBatches,
} from '../helpers/intakeBatches.js';
import { settleLongAgo } from '../helpers/settleLongAgo.js';
import { OWNER_A, postJob, startTestApp, type TestApp } from '../helpers/startTestApp.js';
import { until } from '../helpers/until.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

const charge = (key: string, amount: number): CreateJobRequest => ({
  ownerId: OWNER_A.owner,
  idempotencyKey: key,
  operation: 'charge',
  input: { amount },
});

const batches = () => intakeBatches(t.onejob.metrics, 'jobs');
const since = (before: BatchCounts) => intakeBatchesSince(t.onejob.metrics, 'jobs', before);

/** Rows written for a key: jobs, created audit rows and created outbox events. */
async function written(key: string) {
  const { rows } = await t.onejob.pool.query<{ jobs: number; audit: number; outbox: number }>(
    `SELECT count(DISTINCT j.id)::int AS jobs,
            (SELECT count(*)::int FROM onejob.job_events e JOIN onejob.jobs x ON x.id = e.job_id
              WHERE x.idempotency_key = $1 AND e.type = 'created') AS audit,
            (SELECT count(*)::int FROM onejob.outbox o JOIN onejob.jobs x ON o.subject = x.id::text
              WHERE x.idempotency_key = $1 AND o.type = 'onejob.job.created') AS outbox
     FROM onejob.jobs j WHERE j.idempotency_key = $1`,
    [key],
  );
  return rows[0]!;
}

type Settled = { ok: CreateJobResult } | { error: unknown };
const settle = (p: Promise<CreateJobResult>): Promise<Settled> =>
  p.then(
    (ok) => ({ ok }),
    (error) => ({ error }),
  );

async function archiveKey(key: string, amount: number): Promise<string> {
  const { job } = await t.onejob.jobs.create(charge(key, amount));
  await settleLongAgo(t.onejob.pool, job.id, 90);
  await t.onejob.jobs.archive(new Date(Date.now() - 30 * 86_400_000));
  return job.id;
}

describe('group commit of intake', () => {
  it('20 concurrent creates with distinct keys are one batch statement and each gets its own created job', async () => {
    const before = await batches();
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => t.onejob.jobs.create(charge(`distinct-${i}`, i + 1))),
    );
    expect(await since(before)).toEqual({ statements: 1, requests: 20, fallbacks: 0 });
    results.forEach((r, i) => {
      expect(r.replayed).toBe(false);
      expect(r.job.idempotencyKey).toBe(`distinct-${i}`);
      expect(r.job.input).toEqual({ amount: i + 1 });
      expect(r.job.state).toBe('queued');
    });
    expect(new Set(results.map((r) => r.job.id)).size).toBe(20);
    for (let i = 0; i < 20; i++)
      expect(await written(`distinct-${i}`)).toEqual({ jobs: 1, audit: 1, outbox: 1 });
  });

  it('each batch records how long its oldest request waited and how long the database took', async () => {
    const before = await timedBatches(t.onejob.metrics, 'jobs');
    await Promise.all(Array.from({ length: 5 }, (_, i) => t.onejob.jobs.create(charge(`timed-${i}`, i + 1))));
    const after = await timedBatches(t.onejob.metrics, 'jobs');
    expect(after.waited - before.waited).toBe(1);
    expect(after.took - before.took).toBe(1);
    expect(after.tookSeconds).toBeGreaterThan(before.tookSeconds);
  });

  it('identical keys in one batch make one job: one created answer, the rest replays of it', async () => {
    const before = await batches();
    const results = await Promise.all(
      Array.from({ length: 12 }, () => t.onejob.jobs.create(charge('storm-in-batch', 500))),
    );
    expect(await since(before)).toMatchObject({ statements: 1, requests: 12 });
    expect(results.filter((r) => !r.replayed)).toHaveLength(1);
    expect(results[0]!.replayed).toBe(false);
    expect(new Set(results.map((r) => r.job.id)).size).toBe(1);
    expect(await written('storm-in-batch')).toEqual({ jobs: 1, audit: 1, outbox: 1 });
  });

  it('a different body under a key in the same batch is a 409 for that request only', async () => {
    const results = await Promise.all([
      settle(t.onejob.jobs.create(charge('split-in-batch', 1))),
      settle(t.onejob.jobs.create(charge('split-in-batch', 1))),
      settle(t.onejob.jobs.create(charge('split-in-batch', 2))),
      settle(t.onejob.jobs.create(charge('split-neighbour', 3))),
    ]);
    const [first, again, other, neighbour] = results as [Settled, Settled, Settled, Settled];
    if (!('ok' in first) || !('ok' in again) || !('ok' in neighbour)) throw new Error('a request failed');
    expect(first.ok.replayed).toBe(false);
    expect(again.ok).toMatchObject({ replayed: true, job: { id: first.ok.job.id } });
    expect(neighbour.ok.replayed).toBe(false);
    expect('error' in other && isOnejobError(other.error, 'idempotency_key_reused')).toBe(true);
    expect((other as { error: { extra?: { jobId?: string } } }).error.extra?.jobId).toBe(first.ok.job.id);
    expect(await written('split-in-batch')).toEqual({ jobs: 1, audit: 1, outbox: 1 });
  });

  it('an archived key in a batch replays from its tombstone (or 409s) without failing the batch', async () => {
    const archivedId = await archiveKey('archived-in-batch', 4200);
    const before = await batches();
    const [replay, conflict, fresh] = await Promise.all([
      settle(t.onejob.jobs.create(charge('archived-in-batch', 4200))),
      settle(t.onejob.jobs.create(charge('archived-in-batch', 1))),
      settle(t.onejob.jobs.create(charge('fresh-beside-archived', 5))),
    ]);
    expect(await since(before)).toEqual({ statements: 1, requests: 3, fallbacks: 0 });
    if (!('ok' in replay) || !('ok' in fresh)) throw new Error('a request failed');
    expect(replay.ok.replayed).toBe(true);
    expect(replay.ok.job).toMatchObject({ id: archivedId, state: 'succeeded', result: { charged: true } });
    expect(replay.ok.job.archivedAt).toBeDefined();
    expect('error' in conflict && isOnejobError(conflict.error, 'idempotency_key_reused')).toBe(true);
    expect(fresh.ok.replayed).toBe(false);
    expect(await written('archived-in-batch')).toEqual({ jobs: 0, audit: 0, outbox: 0 });
  });

  it('a batch whose statement trips the archived-key trigger falls back row by row and the others still succeed', async () => {
    // The archival must commit after the batch statement's snapshot: a transaction holds
    // the key's unique-index entry, the batch waits on it, the tombstone commits, and the
    // holder rolls back, so the batch's INSERT goes on and its trigger sees the tombstone.
    const key = 'archived-mid-batch';
    const holder = await t.onejob.pool.connect();
    try {
      await holder.query('BEGIN');
      await holder.query(
        `INSERT INTO onejob.jobs (id, owner_id, idempotency_key, fingerprint, operation, input)
         VALUES (gen_random_uuid(), $1, $2, 'x', 'charge', '{}')`,
        [OWNER_A.owner, key],
      );
      const before = await batches();
      const pending = Promise.all([
        settle(t.onejob.jobs.create(charge('beside-trigger-1', 1))),
        settle(t.onejob.jobs.create(charge(key, 77))),
        settle(t.onejob.jobs.create(charge('beside-trigger-2', 2))),
      ]);
      await until('the batch statement waits on the held key', async () => {
        const { rowCount } = await t.onejob.pool.query(
          `SELECT 1 FROM pg_stat_activity
           WHERE datname = current_database() AND wait_event_type = 'Lock' AND left(query, 200) = left($1, 200)`,
          [CREATE_BATCH_SQL],
        );
        return rowCount === 1;
      });
      const archivedId = '018f0000-0000-7000-8000-000000000001';
      await t.onejob.pool.query(
        `INSERT INTO onejob.job_tombstones
           (owner_id, idempotency_key, fingerprint, job_id, operation, final_state, created_at)
         VALUES ($1, $2, $3, $4, 'charge', 'succeeded', now())`,
        [OWNER_A.owner, key, fingerprint({ operation: 'charge', input: { amount: 77 } }), archivedId],
      );
      await holder.query('ROLLBACK');
      const [one, archived, two] = (await pending) as [Settled, Settled, Settled];
      expect(await since(before)).toEqual({ statements: 1, requests: 3, fallbacks: 1 });
      if (!('ok' in one) || !('ok' in archived) || !('ok' in two)) throw new Error('a request failed');
      expect(one.ok.replayed).toBe(false);
      expect(two.ok.replayed).toBe(false);
      expect(archived.ok).toMatchObject({ replayed: true, job: { id: archivedId, state: 'succeeded' } });
      expect(await written('beside-trigger-1')).toEqual({ jobs: 1, audit: 1, outbox: 1 });
      expect(await written(key)).toEqual({ jobs: 0, audit: 0, outbox: 0 });
    } finally {
      await holder.query('ROLLBACK').catch(() => undefined);
      holder.release();
    }
  });

  it('a request failing validation in a burst gets its 422 and never joins the batch of the others', async () => {
    const before = await batches();
    const results = await Promise.all([
      settle(t.onejob.jobs.create(charge('valid-1', 1))),
      settle(t.onejob.jobs.create({ ...charge('invalid', 1), input: { amount: 'one' } })),
      settle(t.onejob.jobs.create(charge('valid-2', 2))),
    ]);
    expect(await since(before)).toEqual({ statements: 1, requests: 2, fallbacks: 0 });
    expect('ok' in results[0]! && results[0].ok.replayed).toBe(false);
    expect('error' in results[1]! && isOnejobError(results[1].error, 'input_invalid')).toBe(true);
    expect('ok' in results[2]! && results[2].ok.replayed).toBe(false);
    expect(await written('invalid')).toEqual({ jobs: 0, audit: 0, outbox: 0 });
  });

  it('over HTTP, a burst mixing new keys, a repeated key and a 422 gives each request its own answer', async () => {
    const responses = await Promise.all([
      ...Array.from({ length: 10 }, (_, i) =>
        postJob(t, `http-burst-${i}`, { operation: 'charge', input: { amount: 9 } }),
      ),
      ...Array.from({ length: 5 }, () =>
        postJob(t, 'http-burst-same', { operation: 'charge', input: { amount: 9 } }),
      ),
      postJob(t, 'http-burst-bad', { operation: 'charge', input: { amount: -1 } }),
    ]);
    const statuses = responses.map((r) => r.status);
    expect(statuses.slice(0, 15)).toEqual(Array(15).fill(202));
    expect(statuses[15]).toBe(422);
    for (const r of responses.slice(0, 10)) expect(r.headers.get('idempotent-replayed')).toBeNull();
    const same = responses.slice(10, 15);
    expect(same.filter((r) => r.headers.get('idempotent-replayed') === 'true')).toHaveLength(4);
    const ids = await Promise.all(same.map(async (r) => ((await r.json()) as { id: string }).id));
    expect(new Set(ids).size).toBe(1);
    expect(await written('http-burst-same')).toEqual({ jobs: 1, audit: 1, outbox: 1 });
  });

  it("a library create in the caller's transaction is not batched, and a rollback leaves nothing", async () => {
    const before = await batches();
    const client = await t.onejob.pool.connect();
    try {
      await client.query('BEGIN');
      const { job, replayed } = await t.onejob.jobs.create(charge('in-caller-tx', 3), { tx: client });
      expect(replayed).toBe(false);
      const seen = await client.query('SELECT 1 FROM onejob.jobs WHERE id = $1', [job.id]);
      expect(seen.rowCount).toBe(1);
      await client.query('ROLLBACK');
    } finally {
      client.release();
    }
    expect(await since(before)).toEqual({ statements: 0, requests: 0, fallbacks: 0 });
    expect(await written('in-caller-tx')).toEqual({ jobs: 0, audit: 0, outbox: 0 });
  });

  it('a batch answer that does not account for each request exactly once is refused as an internal error', async () => {
    const batch = [charge('check-1', 1), charge('check-2', 2)].map((r) =>
      prepareCreate(t.onejob.operations, r),
    );
    const row = (ord: number, over: Record<string, unknown> = {}) => ({
      ord,
      created: true,
      id: batch[ord - 1]?.id ?? batch[0]!.id,
      owner_id: OWNER_A.owner,
      idempotency_key: `check-${ord}`,
      ...over,
    });
    const answering = (rows: unknown[]) => ({ query: async () => ({ rows }) }) as never;
    const refused = async (rows: unknown[]) => {
      const error = await createJobsBatch(answering(rows), batch).catch((e: unknown) => e);
      return isOnejobError(error, 'internal_error');
    };
    expect(await refused([row(1), row(1)])).toBe(true);
    expect(await refused([row(1), row(3)])).toBe(true);
    expect(await refused([row(1), row(2, { id: batch[0]!.id })])).toBe(true);
    expect(await refused([row(1), row(2, { created: false, idempotency_key: 'check-1' })])).toBe(true);
    // A request without a row is not an error: it is settled on its own (tombstone, lost race).
    expect(await createJobsBatch(answering([row(2)]), batch)).toEqual([undefined, row(2)]);
  });

  it('a request that finds no batch in flight goes at once; requests arriving meanwhile wait for that batch and go together', async () => {
    // The wait limit is far beyond the test's timeout: only "nothing in flight" or "the
    // batch in flight returned" can send a request.
    let open!: () => void;
    const gate = new Promise<void>((r) => {
      open = r;
    });
    // Each batch reads its keys (none exist yet), then writes them: [statement, requests].
    const sent: [string, number][] = [];
    const db = {
      query: async (q: { name: string; values: unknown[] }) => {
        const [first] = q.values;
        sent.push([
          q.name,
          Array.isArray(first) ? first.length : (JSON.parse(first as string) as unknown[]).length,
        ]);
        if (sent.length === 1) await gate;
        return t.onejob.pool.query(q as never);
      },
    };
    const batcher = createJobBatcher(db as never, t.onejob.operations, { maxWaitMs: 600_000 });
    const alone = batcher.create(charge('adaptive-alone', 1));
    await until('the lone request is sent', async () => sent.length === 1);
    const later = [batcher.create(charge('adaptive-later-1', 1))];
    await new Promise((r) => setImmediate(r));
    later.push(batcher.create(charge('adaptive-later-2', 2)));
    await new Promise((r) => setImmediate(r));
    expect(sent).toEqual([[FIND_BY_KEYS_STATEMENT, 1]]);
    open();
    const results = await Promise.all([alone, ...later]);
    expect(sent).toEqual([
      [FIND_BY_KEYS_STATEMENT, 1],
      [CREATE_BATCH_STATEMENT, 1],
      [FIND_BY_KEYS_STATEMENT, 2],
      [CREATE_BATCH_STATEMENT, 2],
    ]);
    expect(results.map((r) => r.replayed)).toEqual([false, false, false]);
    expect(results.map((r) => r.job.idempotencyKey)).toEqual([
      'adaptive-alone',
      'adaptive-later-1',
      'adaptive-later-2',
    ]);
  });
  it('after batches that found no existing key, new keys go straight to the intake statement, and a replay there is still answered and writes nothing', async () => {
    const sent: string[] = [];
    const db = {
      query: async (q: { name: string }) => {
        sent.push(q.name);
        return t.onejob.pool.query(q as never);
      },
    };
    const batcher = createJobBatcher(db as never, t.onejob.operations, { maxWaitMs: 600_000 });
    for (let i = 0; i < 11; i++) await batcher.create(charge(`straight-${i}`, i + 1));
    // Nine batches looked up first and found nothing; from the tenth, one statement each.
    expect(sent.slice(0, 18)).toEqual(
      Array.from({ length: 9 }, () => [FIND_BY_KEYS_STATEMENT, CREATE_BATCH_STATEMENT]).flat(),
    );
    expect(sent.slice(18)).toEqual([CREATE_BATCH_STATEMENT, CREATE_BATCH_STATEMENT]);

    const before = await written('straight-3');
    const replay = await batcher.create(charge('straight-3', 4));
    expect(replay.replayed).toBe(true);
    expect(sent.at(-1)).toBe(CREATE_BATCH_STATEMENT);
    expect(await written('straight-3')).toEqual(before);
    const reused = await batcher.create(charge('straight-4', 999)).catch((e: unknown) => e);
    expect(isOnejobError(reused, 'idempotency_key_reused')).toBe(true);
    // That batch was all replays: the next one looks up first again.
    await batcher.create(charge('straight-after', 1));
    expect(sent.slice(-2)).toEqual([FIND_BY_KEYS_STATEMENT, CREATE_BATCH_STATEMENT]);
  });
});
