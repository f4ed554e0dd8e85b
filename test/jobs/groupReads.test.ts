// Grouped reads: replays of existing keys and reads of jobs by id from concurrent requests
// share one read-only statement per batch, and each request still gets exactly its own
// answer: its own job, its own 404, its own 409, never another owner's job.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Queryable } from '../../src/db/createPool.js';
import { isOnejobError } from '../../src/errors/OnejobError.js';
import type { CreateJobRequest } from '../../src/jobs/createJob.js';
import { createJobBatcher } from '../../src/jobs/createJobBatcher.js';
import { createJobReader } from '../../src/jobs/createJobReader.js';
import { CREATE_BATCH_STATEMENT } from '../../src/jobs/createJobsBatch.js';
import { FIND_BY_IDS_STATEMENT, findJobsById } from '../../src/jobs/findJobsById.js';
import { FIND_BY_KEYS_STATEMENT, findJobsByKey } from '../../src/jobs/findJobsByKey.js';
import { intakeBatches, intakeBatchesSince } from '../helpers/intakeBatches.js';
import { settleLongAgo } from '../helpers/settleLongAgo.js';
import { OWNER_A, OWNER_B, postJob, startTestApp, type TestApp } from '../helpers/startTestApp.js';
import { until } from '../helpers/until.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

const A = OWNER_A.owner;
const B = OWNER_B.owner;

const charge = (ownerId: string, key: string, amount: number): CreateJobRequest => ({
  ownerId,
  idempotencyKey: key,
  operation: 'charge',
  input: { amount },
});

type Settled<T> = { ok: T } | { error: unknown };
const settle = <T>(p: Promise<T>): Promise<Settled<T>> =>
  p.then(
    (ok) => ({ ok }),
    (error) => ({ error }),
  );
const failedWith = (s: Settled<unknown>, code: string) =>
  'error' in s && isOnejobError(s.error, code as never);
const ok = <T>(s: Settled<T>): T => {
  if (!('ok' in s)) throw s.error;
  return s.ok;
};

/**
 * The engine's pool behind a gate: every statement is recorded as [name, requests in it],
 * and the first one waits until `open()`, so requests arriving meanwhile gather behind it.
 */
function gatedPool() {
  let open!: () => void;
  const gate = new Promise<void>((r) => {
    open = r;
  });
  const sent: [string, number][] = [];
  const db = {
    query: async (q: string | { name: string; values: unknown[] }, params?: unknown[]) => {
      const [first] = typeof q === 'string' ? (params ?? []) : q.values;
      const size = Array.isArray(first)
        ? first.length
        : typeof q === 'string'
          ? 1
          : (JSON.parse(first as string) as unknown[]).length;
      sent.push([typeof q === 'string' ? 'unnamed' : q.name, size]);
      if (sent.length === 1) await gate;
      return t.onejob.pool.query(q as never, params as never);
    },
  } as unknown as Queryable;
  return { db, sent, open };
}

async function archive(ownerId: string, key: string, amount: number): Promise<string> {
  const { job } = await t.onejob.jobs.create(charge(ownerId, key, amount));
  await settleLongAgo(t.onejob.pool, job.id, 90);
  await t.onejob.jobs.archive(new Date(Date.now() - 30 * 86_400_000));
  return job.id;
}

describe('reads of jobs by id, grouped', () => {
  it("concurrent reads of two owners' jobs are one statement, and each owner gets only its own job", async () => {
    const a = (await t.onejob.jobs.create(charge(A, 'read-a', 1))).job;
    const b = (await t.onejob.jobs.create(charge(B, 'read-b', 2))).job;
    const before = await intakeBatches(t.onejob.metrics, 'reads');
    const [aOwn, bOwn, aOfB, bOfA] = await Promise.all([
      settle(t.onejob.jobs.get(A, a.id)),
      settle(t.onejob.jobs.get(B, b.id)),
      settle(t.onejob.jobs.get(A, b.id)),
      settle(t.onejob.jobs.get(B, a.id)),
    ]);
    expect(await intakeBatchesSince(t.onejob.metrics, 'reads', before)).toEqual({
      statements: 1,
      requests: 4,
      fallbacks: 0,
    });
    expect(ok(aOwn!)).toMatchObject({ id: a.id, idempotencyKey: 'read-a', input: { amount: 1 } });
    expect(ok(bOwn!)).toMatchObject({ id: b.id, idempotencyKey: 'read-b', input: { amount: 2 } });
    // Another owner's job is "no such job", the same answer as an id nobody has.
    expect(failedWith(aOfB!, 'job_not_found')).toBe(true);
    expect(failedWith(bOfA!, 'job_not_found')).toBe(true);
  });

  it('requests arriving while a read is in flight go together in one statement, each with its own answer', async () => {
    const live = (await t.onejob.jobs.create(charge(A, 'gated-live', 3))).job;
    const other = (await t.onejob.jobs.create(charge(B, 'gated-other', 4))).job;
    const archivedId = await archive(A, 'gated-archived', 5);
    const { db, sent, open } = gatedPool();
    // Nothing but the batch in flight returning can send what gathered.
    const reader = createJobReader(db, { maxWaitMs: 600_000, maxInFlight: 1 });
    const first = reader.get(A, live.id);
    await until('the first read is sent', async () => sent.length === 1);
    const later = [
      settle(reader.get(A, live.id)),
      settle(reader.get(B, other.id)),
      settle(reader.get(A, other.id)), // another owner's job
      settle(reader.get(A, randomUUID())), // no job at all
      settle(reader.get(A, archivedId)),
      settle(reader.get(B, archivedId)), // another owner's archived job
      settle(reader.get(A, 'not-a-uuid')), // never joins a batch
    ];
    expect(sent).toEqual([[FIND_BY_IDS_STATEMENT, 1]]);
    open();
    expect((await first).id).toBe(live.id);
    const [again, bOwn, aOfB, nobody, archived, bOfArchived, malformed] = await Promise.all(later);
    // One statement answered the six well-formed reads.
    expect(sent).toEqual([
      [FIND_BY_IDS_STATEMENT, 1],
      [FIND_BY_IDS_STATEMENT, 6],
    ]);
    expect(ok(again!)).toMatchObject({ id: live.id, input: { amount: 3 } });
    expect(ok(bOwn!)).toMatchObject({ id: other.id, input: { amount: 4 } });
    expect(failedWith(aOfB!, 'job_not_found')).toBe(true);
    expect(failedWith(nobody!, 'job_not_found')).toBe(true);
    expect(ok(archived!)).toMatchObject({ id: archivedId, state: 'succeeded', result: { charged: true } });
    expect(ok(archived!).archivedAt).toBeDefined();
    expect(failedWith(bOfArchived!, 'job_not_found')).toBe(true);
    expect(failedWith(malformed!, 'job_not_found')).toBe(true);
  });

  it('the same job read twice in one batch is two objects: one caller cannot change what the other got', async () => {
    const job = (await t.onejob.jobs.create(charge(A, 'read-twice', 6))).job;
    const [x, y] = await Promise.all([t.onejob.jobs.get(A, job.id), t.onejob.jobs.get(A, job.id)]);
    expect(x).toEqual(y);
    (x.input as { amount: number }).amount = 999;
    expect(y.input).toEqual({ amount: 6 });
  });

  it('a read batch whose statement fails sends each read alone, and each still gets its own answer', async () => {
    const job = (await t.onejob.jobs.create(charge(A, 'read-fallback', 7))).job;
    let calls = 0;
    const db = {
      query: (q: never) => {
        calls++;
        if (calls === 1) return Promise.reject(new Error('connection lost'));
        return t.onejob.pool.query(q);
      },
    } as unknown as Queryable;
    const reader = createJobReader(db);
    const [mine, theirs] = await Promise.all([settle(reader.get(A, job.id)), settle(reader.get(B, job.id))]);
    expect(calls).toBe(3);
    expect(ok(mine)).toMatchObject({ id: job.id });
    expect(failedWith(theirs, 'job_not_found')).toBe(true);
  });

  it("a read statement's row that answers no request, or answers one twice, is refused as an internal error", async () => {
    const id = randomUUID();
    const row = (ord: number, over: Record<string, unknown> = {}) => ({
      ord,
      id,
      owner_id: A,
      idempotency_key: 'k',
      created_at: new Date(),
      updated_at: new Date(),
      ...over,
    });
    const answering = (rows: unknown[]) => ({ query: async () => ({ rows }) }) as never;
    const refused = (rows: unknown[]) =>
      findJobsById(answering(rows), [{ ownerId: A, id }]).then(
        () => false,
        (e: unknown) => isOnejobError(e, 'internal_error'),
      );
    expect(await refused([row(1), row(1)])).toBe(true);
    expect(await refused([row(2)])).toBe(true);
    expect(await refused([row(1, { owner_id: B })])).toBe(true);
    expect(await refused([row(1, { id: randomUUID() })])).toBe(true);
    const byKey = (rows: unknown[]) =>
      findJobsByKey(answering(rows), [{ ownerId: A, idempotencyKey: 'k' }]).then(
        () => false,
        (e: unknown) => isOnejobError(e, 'internal_error'),
      );
    expect(await byKey([row(1, { owner_id: B })])).toBe(true);
    expect(await byKey([row(1, { idempotency_key: 'other' })])).toBe(true);
    expect(await byKey([row(1), row(1)])).toBe(true);
  });
});

describe('replays, grouped', () => {
  it('replays of two owners under the same key in one batch are one read, and each owner gets its own job', async () => {
    const a = (await t.onejob.jobs.create(charge(A, 'same-key', 10))).job;
    const b = (await t.onejob.jobs.create(charge(B, 'same-key', 20))).job;
    const { db, sent, open } = gatedPool();
    const batcher = createJobBatcher(db, t.onejob.operations, { maxWaitMs: 600_000, maxInFlight: 1 });
    const first = batcher.create(charge(A, 'same-key', 10));
    await until('the first look-up is sent', async () => sent.length === 1);
    const later = [
      settle(batcher.create(charge(A, 'same-key', 10))),
      settle(batcher.create(charge(B, 'same-key', 20))),
      // A's body under B's key, and B's under A's: each owner's own job decides.
      settle(batcher.create(charge(B, 'same-key', 10))),
      settle(batcher.create(charge(A, 'same-key', 20))),
    ];
    open();
    expect(await first).toMatchObject({ replayed: true, job: { id: a.id } });
    const [aAgain, bOwn, bWithA, aWithB] = await Promise.all(later);
    // Replays only: one look-up for the batch (the same key of one owner read once), no write.
    expect(sent).toEqual([
      [FIND_BY_KEYS_STATEMENT, 1],
      [FIND_BY_KEYS_STATEMENT, 2],
    ]);
    expect(ok(aAgain!)).toMatchObject({ replayed: true, job: { id: a.id, input: { amount: 10 } } });
    expect(ok(bOwn!)).toMatchObject({ replayed: true, job: { id: b.id, input: { amount: 20 } } });
    expect(failedWith(bWithA!, 'idempotency_key_reused')).toBe(true);
    expect((bWithA as { error: { extra?: { jobId?: string } } }).error.extra?.jobId).toBe(b.id);
    expect(failedWith(aWithB!, 'idempotency_key_reused')).toBe(true);
    expect((aWithB as { error: { extra?: { jobId?: string } } }).error.extra?.jobId).toBe(a.id);
  });

  it('a batch of hits, misses, a different body and an archived key answers each, and writes only the misses', async () => {
    const hit = (await t.onejob.jobs.create(charge(A, 'mixed-hit', 1))).job;
    const archivedId = await archive(A, 'mixed-archived', 2);
    const jobsBefore = await t.onejob.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM onejob.jobs');
    const { db, sent, open } = gatedPool();
    const batcher = createJobBatcher(db, t.onejob.operations, { maxWaitMs: 600_000, maxInFlight: 1 });
    const first = batcher.create(charge(A, 'mixed-hit', 1));
    await until('the first look-up is sent', async () => sent.length === 1);
    const later = [
      settle(batcher.create(charge(A, 'mixed-hit', 1))),
      settle(batcher.create(charge(A, 'mixed-hit', 99))),
      settle(batcher.create(charge(A, 'mixed-new-1', 3))),
      settle(batcher.create(charge(B, 'mixed-hit', 1))), // B has no job under A's key
      settle(batcher.create(charge(A, 'mixed-archived', 2))),
    ];
    open();
    expect(await first).toMatchObject({ replayed: true, job: { id: hit.id } });
    const [replay, conflict, fresh, otherOwner, archived] = await Promise.all(later);
    expect(ok(replay!)).toMatchObject({ replayed: true, job: { id: hit.id } });
    expect(failedWith(conflict!, 'idempotency_key_reused')).toBe(true);
    expect(ok(fresh!)).toMatchObject({
      replayed: false,
      job: { idempotencyKey: 'mixed-new-1', state: 'queued' },
    });
    expect(ok(otherOwner!).replayed).toBe(false);
    expect(ok(otherOwner!).job.id).not.toBe(hit.id);
    expect(ok(archived!)).toMatchObject({ replayed: true, job: { id: archivedId, state: 'succeeded' } });
    // One look-up for the batch's four keys; the intake statement only for the three no job
    // holds (the tombstoned key is refused there and settled from its tombstone).
    expect(sent.slice(0, 3)).toEqual([
      [FIND_BY_KEYS_STATEMENT, 1],
      [FIND_BY_KEYS_STATEMENT, 4],
      [CREATE_BATCH_STATEMENT, 3],
    ]);
    const jobsAfter = await t.onejob.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM onejob.jobs');
    expect(jobsAfter.rows[0]!.n - jobsBefore.rows[0]!.n).toBe(2);
  });

  it("over HTTP, concurrent replays and reads of two owners each return only the caller's own job", async () => {
    const body = (amount: number) => ({ operation: 'charge', input: { amount } });
    const a = (await (await postJob(t, 'http-shared', body(1))).json()) as { id: string };
    const b = (await (await postJob(t, 'http-shared', body(2), OWNER_B.token)).json()) as { id: string };
    const requests = Array.from({ length: 8 }, (_, i) => {
      const owner = i % 2 === 0 ? OWNER_A : OWNER_B;
      const own = owner === OWNER_A ? a.id : b.id;
      const theirs = owner === OWNER_A ? b.id : a.id;
      return [
        postJob(t, 'http-shared', body(owner === OWNER_A ? 1 : 2), owner.token).then(async (r) => ({
          kind: 'replay',
          own,
          status: r.status,
          id: ((await r.json()) as { id: string }).id,
          replayed: r.headers.get('idempotent-replayed'),
        })),
        t.request(`/v1/jobs/${own}`, { token: owner.token }).then(async (r) => ({
          kind: 'own',
          own,
          status: r.status,
          id: ((await r.json()) as { id?: string }).id,
          replayed: null,
        })),
        t.request(`/v1/jobs/${theirs}`, { token: owner.token }).then(async (r) => ({
          kind: 'theirs',
          own,
          status: r.status,
          id: ((await r.json()) as { id?: string }).id,
          replayed: null,
        })),
      ];
    }).flat();
    for (const r of await Promise.all(requests)) {
      if (r.kind === 'theirs') expect(r).toMatchObject({ status: 404, id: undefined });
      else expect(r).toMatchObject({ status: r.kind === 'replay' ? 202 : 200, id: r.own });
      if (r.kind === 'replay') expect(r.replayed).toBe('true');
    }
  });
});
