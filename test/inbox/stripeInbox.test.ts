import { randomBytes } from 'node:crypto';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/defaultConfig.js';
import type { OnejobConfig } from '../../src/config/types.js';
import { countRows, inboxWrites } from '../helpers/countRows.js';
import { deliverTogether } from '../helpers/deliverTogether.js';
import { startTestApp, type TestApp } from '../helpers/startTestApp.js';

// Signed by Stripe's own library, exactly as Stripe signs its deliveries.
const stripe = new Stripe('sk_test_never_used');
const SECRET = `whsec_${randomBytes(24).toString('hex')}`;
process.env.ONEJOB_TEST_STRIPE_SECRET = SECRET;

const base = structuredClone(defaultConfig);
const config: OnejobConfig = {
  ...base,
  operations: {
    ...base.operations,
    // Stripe posts its event envelope; the job's input is that envelope.
    'stripe-event': {
      ...(base.operations.charge as OnejobConfig['operations'][string]),
      inputSchema: { type: 'object', required: ['id', 'type'], additionalProperties: true },
    },
  },
  // One delivery per transaction, as separate processes would send them: the race test
  // below needs ten deliveries inside the database at once. Batched deliveries are
  // covered in deliveryGroupCommit.test.ts.
  intake: { maxBatchSize: 1 },
  inbox: {
    sources: {
      stripe: {
        scheme: 'stripe',
        secretEnv: 'ONEJOB_TEST_STRIPE_SECRET',
        operation: 'stripe-event',
        ownerId: 'acme',
      },
    },
  },
};

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ config });
});
afterAll(async () => t?.close());

const event = (id: string, amount = 4200) =>
  JSON.stringify({ id, object: 'event', type: 'payment_intent.succeeded', data: { object: { amount } } });

/** Seconds since the epoch, `ago` seconds in the past. */
const secondsAgo = (ago: number) => Math.floor(Date.now() / 1000) - ago;

function deliver(body: string, signature: string | null) {
  const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8' };
  if (signature !== null) headers['stripe-signature'] = signature;
  return fetch(`${t.url}/v1/inbox/stripe`, { method: 'POST', headers, body });
}

const signed = (body: string, { secret = SECRET, timestamp = secondsAgo(0) } = {}) =>
  stripe.webhooks.generateTestHeaderString({ payload: body, secret, timestamp });

const count = (sql: string, params: unknown[] = []) => countRows(t.onejob.pool, sql, params);
const written = () => inboxWrites(t.onejob.pool);

describe('stripe inbox source', () => {
  it("a Stripe event signed by Stripe's library creates one job; its retry (new timestamp, new signature) replays that job", async () => {
    const body = event('evt_first');
    const firstSignature = signed(body, { timestamp: secondsAgo(30) });
    const retrySignature = signed(body);
    expect(retrySignature).not.toBe(firstSignature);

    const first = await deliver(body, firstSignature);
    expect(first.status).toBe(202);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const retry = await deliver(body, retrySignature);
    expect(retry.status).toBe(202);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    const firstText = await first.text();
    expect(await retry.text()).toBe(firstText);

    const { jobId } = JSON.parse(firstText) as { jobId: string };
    const jobs = await t.onejob.pool.query(
      `SELECT id, owner_id, input FROM onejob.jobs WHERE idempotency_key = 'inbox:stripe:evt_first'`,
    );
    expect(jobs.rows).toEqual([{ id: jobId, owner_id: 'acme', input: JSON.parse(body) }]);
    const rows = await t.onejob.pool.query(
      `SELECT deliveries FROM onejob.inbox_events WHERE source = 'stripe' AND event_id = 'evt_first'`,
    );
    expect(rows.rows).toEqual([{ deliveries: 2 }]);
  });

  it('a tampered body, a wrong secret, an expired or future timestamp, or a missing or malformed header is 401 and writes nothing', async () => {
    const before = await written();
    const body = event('evt_refused');
    const otherSecret = `whsec_${randomBytes(24).toString('hex')}`;
    const valid = signed(body);
    const cases: [string, string, string | null][] = [
      ['tampered body', event('evt_refused', 1), valid],
      ['wrong secret', body, signed(body, { secret: otherSecret })],
      ['expired timestamp', body, signed(body, { timestamp: secondsAgo(310) })],
      ['timestamp from the future', body, signed(body, { timestamp: secondsAgo(-310) })],
      ['missing header', body, null],
      ['no v1 entry', body, valid.replace('v1=', 'v0=')],
      ['no timestamp', body, valid.replace(/^t=\d+,/, '')],
      ['signature moved to another timestamp', body, valid.replace(/^t=\d+/, `t=${secondsAgo(5)}`)],
      ['not hex', body, `t=${secondsAgo(0)},v1=${'z'.repeat(64)}`],
    ];
    for (const [what, sentBody, signature] of cases) {
      const r = await deliver(sentBody, signature);
      expect(r.status, what).toBe(401);
      expect(await r.json(), what).toMatchObject({ code: 'signature_invalid' });
    }
    expect(await written()).toEqual(before);
    // Nothing was claimed: the correctly signed delivery is still the first.
    const good = await deliver(body, valid);
    expect(good.status).toBe(202);
    expect(good.headers.get('idempotent-replayed')).toBeNull();
  });

  it('any matching v1 entry verifies, so a rotating secret keeps working', async () => {
    const body = event('evt_rotating');
    const timestamp = secondsAgo(0);
    const oldSecret = `whsec_${randomBytes(24).toString('hex')}`;
    const fromOld = signed(body, { secret: oldSecret, timestamp });
    const fromNew = signed(body, { timestamp });
    const both = `${fromOld},${fromNew.split(',')[1]}`;
    const r = await deliver(body, both);
    expect(r.status).toBe(202);
  });

  it('a signed event without an id in its body is 400 event_id_missing and writes nothing', async () => {
    const before = await written();
    const body = JSON.stringify({ object: 'event', type: 'payment_intent.succeeded' });
    const r = await deliver(body, signed(body));
    expect(r.status).toBe(400);
    expect(await r.json()).toMatchObject({ code: 'event_id_missing' });
    expect(await written()).toEqual(before);
  });

  it('ten simultaneous identical deliveries, all inside the database at once, make one job and ten identical answers', async () => {
    const body = event('evt_ten');
    const signature = signed(body);
    const responses = await deliverTogether(t.onejob.pool, 10, () => deliver(body, signature));
    expect(responses.map((r) => r.status)).toEqual(Array(10).fill(202));
    expect(responses.filter((r) => r.headers.get('idempotent-replayed') === null)).toHaveLength(1);
    expect(new Set(await Promise.all(responses.map((r) => r.text()))).size).toBe(1);
    expect(await count(`SELECT 1 FROM onejob.jobs WHERE idempotency_key = 'inbox:stripe:evt_ten'`)).toBe(1);
    const rows = await t.onejob.pool.query(
      `SELECT deliveries FROM onejob.inbox_events WHERE source = 'stripe' AND event_id = 'evt_ten'`,
    );
    expect(rows.rows).toEqual([{ deliveries: 10 }]);
  }, 120_000);
});
