import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/defaultConfig.js';
import type { OnejobConfig } from '../../src/config/types.js';
import { isOnejobError } from '../../src/errors/OnejobError.js';
import { setFailpoints } from '../../src/failpoints/failpoints.js';
import { type BatchCounts, intakeBatches, intakeBatchesSince } from '../helpers/intakeBatches.js';
import { paymentsSource, signedDelivery, webhookSigner } from '../helpers/standardWebhooks.js';
import { startTestApp, type TestApp } from '../helpers/startTestApp.js';

const webhook = webhookSigner('ONEJOB_TEST_BATCH_SECRET');
const config: OnejobConfig = {
  ...structuredClone(defaultConfig),
  inbox: { sources: { payments: paymentsSource('ONEJOB_TEST_BATCH_SECRET') } },
};

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ config });
});
afterAll(async () => t?.close());
afterEach(() => setFailpoints(undefined));

/** One signed delivery through the library, as a payment provider's webhook would arrive. */
function receive(id: string, body: unknown) {
  return t.onejob.inbox.receive('payments', signedDelivery(webhook, id, JSON.stringify(body)));
}

const batches = () => intakeBatches(t.onejob.metrics, 'deliveries');
const since = (before: BatchCounts) => intakeBatchesSince(t.onejob.metrics, 'deliveries', before);

/** What one event wrote: its inbox row, the jobs under its key, their created outbox events. */
async function written(eventId: string) {
  const { rows } = await t.onejob.pool.query<{
    events: number;
    deliveries: number | null;
    differing: number | null;
    jobs: number;
    outbox: number;
    job_id: string | null;
  }>(
    `SELECT (SELECT count(*)::int FROM onejob.inbox_events WHERE source = 'payments' AND event_id = $1) AS events,
            (SELECT deliveries FROM onejob.inbox_events WHERE source = 'payments' AND event_id = $1) AS deliveries,
            (SELECT differing_payloads FROM onejob.inbox_events WHERE source = 'payments' AND event_id = $1) AS differing,
            (SELECT job_id::text FROM onejob.inbox_events WHERE source = 'payments' AND event_id = $1) AS job_id,
            (SELECT count(*)::int FROM onejob.jobs WHERE idempotency_key = 'inbox:payments:' || $1) AS jobs,
            (SELECT count(*)::int FROM onejob.outbox o JOIN onejob.jobs j ON o.subject = j.id::text
              WHERE j.idempotency_key = 'inbox:payments:' || $1 AND o.type = 'onejob.job.created') AS outbox`,
    [eventId],
  );
  return rows[0]!;
}

const created = async () =>
  (await t.onejob.metrics.jobsCreated.get()).values.reduce((sum, v) => sum + v.value, 0);

describe('group commit of webhook deliveries', () => {
  it('20 events delivered at once are one batch: each gets its own job and its own stored answer', async () => {
    const before = await batches();
    const jobsBefore = await created();
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => receive(`evt_distinct_${i}`, { amount: i + 1 })),
    );
    expect(await since(before)).toEqual({ statements: 1, requests: 20, fallbacks: 0 });
    expect(await created()).toBe(jobsBefore + 20);
    expect(new Set(answers.map((a) => a.body.jobId)).size).toBe(20);
    for (const [i, a] of answers.entries()) {
      expect(a).toMatchObject({ status: 202, replayed: false, deliveries: 1, eventId: `evt_distinct_${i}` });
      const w = await written(`evt_distinct_${i}`);
      expect(w).toMatchObject({ events: 1, deliveries: 1, jobs: 1, outbox: 1, job_id: a.body.jobId });
      const job = await t.onejob.jobs.get('acme', a.body.jobId);
      expect(job.input).toEqual({ amount: i + 1 });
    }
  });

  it('one event delivered five times in one batch is one job: one first answer, four redeliveries counted', async () => {
    const before = await batches();
    const answers = await Promise.all(Array.from({ length: 5 }, () => receive('evt_storm', { amount: 9 })));
    expect(await since(before)).toMatchObject({ statements: 1, requests: 5, fallbacks: 0 });
    expect(answers.filter((a) => !a.replayed)).toHaveLength(1);
    expect(answers[0]!.replayed).toBe(false);
    expect(new Set(answers.map((a) => JSON.stringify(a.body))).size).toBe(1);
    expect(answers.map((a) => a.deliveries).sort()).toEqual([1, 2, 3, 4, 5]);
    expect(await written('evt_storm')).toMatchObject({ events: 1, deliveries: 5, jobs: 1, outbox: 1 });
  });

  it('a redelivery of an earlier event in a batch gets the stored answer and is counted, differing body included', async () => {
    const first = await receive('evt_earlier', { amount: 3 });
    const before = await batches();
    const [again, fresh] = await Promise.all([
      receive('evt_earlier', { amount: 4 }),
      receive('evt_beside_earlier', { amount: 5 }),
    ]);
    expect(await since(before)).toEqual({ statements: 1, requests: 2, fallbacks: 0 });
    expect(again).toMatchObject({ status: 202, replayed: true, deliveries: 2, body: first.body });
    expect(fresh).toMatchObject({ replayed: false, deliveries: 1 });
    expect(await written('evt_earlier')).toMatchObject({ events: 1, deliveries: 2, differing: 1, jobs: 1 });
  });

  it('a batch that fails inside its transaction writes nothing, and each delivery then goes alone', async () => {
    setFailpoints('inbox.batch=error');
    const before = await batches();
    const answers = await Promise.all(
      Array.from({ length: 4 }, (_, i) => receive(`evt_fp_${i}`, { amount: 1 })),
    );
    expect(await since(before)).toEqual({ statements: 1, requests: 4, fallbacks: 1 });
    for (const [i, a] of answers.entries()) {
      expect(a).toMatchObject({ status: 202, replayed: false, deliveries: 1 });
      expect(await written(`evt_fp_${i}`)).toMatchObject({ events: 1, deliveries: 1, jobs: 1, outbox: 1 });
    }
  });

  it('a body the operation refuses is refused before it joins a batch and writes nothing', async () => {
    const before = await batches();
    const [bad, good] = await Promise.allSettled([
      receive('evt_bad_input', { amount: 'lots' }),
      receive('evt_beside_bad', { amount: 2 }),
    ]);
    expect(bad.status === 'rejected' && isOnejobError(bad.reason, 'input_invalid')).toBe(true);
    expect(good).toMatchObject({ status: 'fulfilled', value: { replayed: false } });
    expect(await since(before)).toEqual({ statements: 1, requests: 1, fallbacks: 0 });
    expect(await written('evt_bad_input')).toMatchObject({ events: 0, jobs: 0 });
  });
});
