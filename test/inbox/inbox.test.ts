import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/defaultConfig.js';
import type { OnejobConfig } from '../../src/config/types.js';
import { setFailpoints } from '../../src/failpoints/failpoints.js';
import { countRows, inboxWrites } from '../helpers/countRows.js';
import { paymentsSource, webhookSigner } from '../helpers/standardWebhooks.js';
import { postJob, startTestApp, type TestApp } from '../helpers/startTestApp.js';

const webhook = webhookSigner('ONEJOB_TEST_PAYMENTS_SECRET');

const config: OnejobConfig = {
  ...structuredClone(defaultConfig),
  inbox: {
    sources: {
      payments: paymentsSource('ONEJOB_TEST_PAYMENTS_SECRET'),
      orders: {
        scheme: 'standard-webhooks',
        secretEnv: 'ONEJOB_TEST_PAYMENTS_SECRET',
        eventId: 'json:/order/id',
        operation: 'charge',
        ownerId: 'shop',
        toleranceSeconds: 60,
      },
    },
  },
};

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ config });
});
afterAll(async () => t?.close());
afterEach(() => setFailpoints(undefined));

interface Delivery {
  source?: string;
  body: string;
  /** webhook-id header; the signature covers it. */
  id?: string | undefined;
  at?: Date;
  signature?: string | null;
  secret?: Webhook;
}

/** Sends a delivery signed the Standard Webhooks way, as a payment provider would. */
function deliver({ source = 'payments', body, id, at = new Date(), signature, secret = webhook }: Delivery) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  const msgId = id ?? `delivery-${randomBytes(4).toString('hex')}`;
  if (id !== undefined) headers['webhook-id'] = id;
  headers['webhook-timestamp'] = String(Math.floor(at.getTime() / 1000));
  const sig = signature === undefined ? secret.sign(msgId, at, body) : signature;
  if (sig !== null) headers['webhook-signature'] = sig;
  return fetch(`${t.url}/v1/inbox/${source}`, { method: 'POST', headers, body });
}

const count = (sql: string, params: unknown[] = []) => countRows(t.onejob.pool, sql, params);
const written = () => inboxWrites(t.onejob.pool);

describe('webhook inbox', () => {
  it('one event delivered three times with new timestamps and signatures: one job, one created event, three identical 202 answers', async () => {
    const body = JSON.stringify({ type: 'payment.succeeded', amount: 4200 });
    const now = Date.now();
    const answers: { status: number; replayed: string | null; text: string }[] = [];
    for (const [i, at] of [new Date(now - 20_000), new Date(now - 10_000), new Date(now)].entries()) {
      const signature = webhook.sign('evt_three', at, body);
      if (i > 0) expect(signature).not.toBe(webhook.sign('evt_three', new Date(now - 20_000), body));
      const r = await deliver({ id: 'evt_three', body, at });
      answers.push({
        status: r.status,
        replayed: r.headers.get('idempotent-replayed'),
        text: await r.text(),
      });
    }
    expect(answers.map((a) => a.status)).toEqual([202, 202, 202]);
    expect(answers.map((a) => a.replayed)).toEqual([null, 'true', 'true']);
    expect(new Set(answers.map((a) => a.text)).size).toBe(1);
    const { jobId } = JSON.parse(answers[0]?.text ?? '{}') as { jobId: string };

    const jobs = await t.onejob.pool.query(
      `SELECT id, owner_id, idempotency_key, input FROM onejob.jobs WHERE idempotency_key LIKE 'inbox:payments:evt_three'`,
    );
    expect(jobs.rows).toEqual([
      { id: jobId, owner_id: 'acme', idempotency_key: 'inbox:payments:evt_three', input: JSON.parse(body) },
    ]);
    expect(
      await count(`SELECT 1 FROM onejob.outbox WHERE subject = $1 AND type = 'onejob.job.created'`, [jobId]),
    ).toBe(1);
    const event = await t.onejob.pool.query(
      `SELECT deliveries, differing_payloads, job_id FROM onejob.inbox_events WHERE event_id = 'evt_three'`,
    );
    expect(event.rows).toEqual([{ deliveries: 3, differing_payloads: 0, job_id: jobId }]);
  });

  it('two identical deliveries at the same instant, held at a gate inside the first transaction: one job, identical answers', async () => {
    const body = JSON.stringify({ amount: 77 });
    const gate = await t.onejob.pool.connect();
    let released = false;
    let both: Promise<Response>[] = [];
    try {
      // Holding this lock stops the first delivery just before it inserts its job (its
      // inbox row is claimed but uncommitted); the second must then wait on that row.
      await gate.query('BEGIN');
      await gate.query('LOCK TABLE onejob.jobs IN SHARE ROW EXCLUSIVE MODE');
      const at = new Date();
      both = [deliver({ id: 'evt_twin', body, at }), deliver({ id: 'evt_twin', body, at })];
      // Wait until one delivery waits on the jobs table and the other on the first's transaction.
      // A loaded machine can take a while to get both there; the bound only stops a hang.
      const deadline = Date.now() + 90_000;
      for (;;) {
        // Polled outside the gate's transaction: pg_stat_activity is a snapshot taken once
        // per transaction, so a backend that connects later would never show up inside it.
        const { rows } = await t.onejob.pool.query<{ locktype: string }>(
          `SELECT l.locktype FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
           WHERE NOT l.granted AND a.datname = current_database() ORDER BY l.locktype`,
        );
        if (rows.map((r) => r.locktype).join(',') === 'relation,transactionid') break;
        if (Date.now() > deadline)
          throw new Error(`deliveries never reached the gate: ${JSON.stringify(rows)}`);
        await new Promise((r) => setTimeout(r, 10));
      }
      await gate.query('COMMIT');
      released = true;
      const responses = await Promise.all(both);
      expect(responses.map((r) => r.status)).toEqual([202, 202]);
      expect(responses.map((r) => r.headers.get('idempotent-replayed')).sort()).toEqual(
        ['true', null].sort(),
      );
      const texts = await Promise.all(responses.map((r) => r.text()));
      expect(texts[0]).toBe(texts[1]);
      expect(await count(`SELECT 1 FROM onejob.jobs WHERE idempotency_key = 'inbox:payments:evt_twin'`)).toBe(
        1,
      );
      expect(
        await count(`SELECT 1 FROM onejob.inbox_events WHERE event_id = 'evt_twin' AND deliveries = 2`),
      ).toBe(1);
    } finally {
      if (!released) await gate.query('ROLLBACK').catch(() => undefined);
      gate.release();
      // Never let a delivery of this test finish inside the next one's row counts.
      await Promise.allSettled(both);
    }
  }, 120_000);

  it('a signed delivery without an event id in its body is 400 event_id_missing and writes nothing', async () => {
    const before = await written();
    const noField = await deliver({
      source: 'orders',
      id: 'msg-1',
      body: JSON.stringify({ amount: 1, order: {} }),
    });
    expect(noField.status).toBe(400);
    expect(await noField.json()).toMatchObject({ code: 'event_id_missing' });
    const badId = await deliver({
      source: 'orders',
      id: 'msg-2',
      body: JSON.stringify({ amount: 1, order: { id: { nested: true } } }),
    });
    expect(badId.status).toBe(400);
    expect(await badId.json()).toMatchObject({ code: 'event_id_invalid' });
    expect(await written()).toEqual(before);
  });

  it('the signature is checked before the event id: an unsigned or badly signed delivery is 401 whatever its event id, and says nothing about where the source reads it', async () => {
    const before = await written();
    const other = new Webhook(`whsec_${randomBytes(24).toString('base64')}`);
    const cases: Delivery[] = [
      // No webhook-id header at all: the id is part of the signed string.
      { body: JSON.stringify({ amount: 1 }) },
      { source: 'orders', id: 'm-1', body: JSON.stringify({ amount: 1, order: {} }), signature: null },
      { source: 'orders', id: 'm-2', body: JSON.stringify({ amount: 1, order: {} }), secret: other },
      {
        source: 'orders',
        id: 'm-3',
        body: JSON.stringify({ amount: 1, order: { id: { x: 1 } } }),
        secret: other,
      },
      { source: 'orders', id: 'm-4', body: '{"order":', signature: 'v1,AAAA' },
    ];
    for (const c of cases) {
      const r = await deliver(c);
      expect(r.status, JSON.stringify(c)).toBe(401);
      const problem = (await r.json()) as { code: string; detail?: string };
      expect(problem.code).toBe('signature_invalid');
      expect(problem.detail ?? '').not.toMatch(/pointer|\/order\/id/);
    }
    expect(await written()).toEqual(before);
  });

  it('a bad, missing or stale signature is 401 signature_invalid and writes nothing', async () => {
    const refusedSoFar = async () =>
      (await t.onejob.metrics.inboxDeliveries.get()).values
        .filter((v) => v.labels.outcome === 'signature_invalid')
        .reduce((n, v) => n + v.value, 0);
    const refusedBefore = await refusedSoFar();
    const before = await written();
    const body = JSON.stringify({ amount: 10 });
    const other = new Webhook(`whsec_${randomBytes(24).toString('base64')}`);
    const cases: Delivery[] = [
      { id: 'evt_sig', body, secret: other },
      { id: 'evt_sig', body, signature: null },
      { id: 'evt_sig', body, signature: 'v1,AAAA' },
      { id: 'evt_sig', body, signature: webhook.sign('evt_sig', new Date(), JSON.stringify({ amount: 11 })) },
      { id: 'evt_sig', body, signature: webhook.sign('evt_other', new Date(), body) },
      { id: 'evt_sig', body, at: new Date(Date.now() - 310_000) },
      { id: 'evt_sig', body, at: new Date(Date.now() + 310_000) },
      {
        source: 'orders',
        id: 'm',
        body: JSON.stringify({ amount: 1, order: { id: 'o-1' } }),
        at: new Date(Date.now() - 70_000),
      },
    ];
    for (const c of cases) {
      const r = await deliver(c);
      expect(r.status, JSON.stringify(c)).toBe(401);
      expect(await r.json()).toMatchObject({ code: 'signature_invalid' });
    }
    expect(await written()).toEqual(before);
    expect((await refusedSoFar()) - refusedBefore).toBe(cases.length);
    // The event is still new: a correctly signed delivery creates its job.
    expect((await deliver({ id: 'evt_sig', body })).headers.get('idempotent-replayed')).toBeNull();
  });

  it('an unknown source is 404 source_unknown; the inbox needs no bearer token but the signature', async () => {
    const r = await deliver({ source: 'nobody', id: 'x', body: '{}' });
    expect(r.status).toBe(404);
    expect(await r.json()).toMatchObject({ code: 'source_unknown' });
  });

  it('a body the operation refuses is 422 and writes nothing, so the fixed redelivery still creates the job', async () => {
    const before = await written();
    const bad = await deliver({ id: 'evt_fix', body: JSON.stringify({ amount: 'lots' }) });
    expect(bad.status).toBe(422);
    expect(await bad.json()).toMatchObject({ code: 'input_invalid' });
    for (const body of ['[1,2]', '{"amount":', '']) {
      const r = await deliver({ id: 'evt_fix', body });
      expect(r.status, body).toBe(400);
    }
    expect(await written()).toEqual(before);
    const good = await deliver({ id: 'evt_fix', body: JSON.stringify({ amount: 5 }) });
    expect(good.status).toBe(202);
    expect(good.headers.get('idempotent-replayed')).toBeNull();
  });

  it('the event id alone is the key: a redelivery with another body gets the stored answer and is counted as differing', async () => {
    const first = await deliver({ id: 'evt_body', body: JSON.stringify({ amount: 1 }) });
    const second = await deliver({ id: 'evt_body', body: JSON.stringify({ amount: 2 }) });
    expect(await second.text()).toBe(await first.text());
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    const { rows } = await t.onejob.pool.query(
      `SELECT deliveries, differing_payloads FROM onejob.inbox_events WHERE event_id = 'evt_body'`,
    );
    expect(rows[0]).toEqual({ deliveries: 2, differing_payloads: 1 });
  });

  it('the answer lost after commit (failpoint inbox.after_commit): the redelivery gets the job that was created', async () => {
    setFailpoints('inbox.after_commit=error');
    const body = JSON.stringify({ amount: 9 });
    const lost = await deliver({ id: 'evt_lost', body });
    expect(lost.status).toBe(500);
    setFailpoints(undefined);
    const retry = await deliver({ id: 'evt_lost', body });
    expect(retry.status).toBe(202);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    const { jobId } = (await retry.json()) as { jobId: string };
    const { rows } = await t.onejob.pool.query(
      `SELECT id FROM onejob.jobs WHERE idempotency_key = 'inbox:payments:evt_lost'`,
    );
    expect(rows).toEqual([{ id: jobId }]);
  });

  it('signatures cover the raw bytes: unusual spacing and key order verify, and JSON routes still parse JSON', async () => {
    const body = '{ "note" : "caf\u00e9",\n  "amount":   12 }';
    const r = await deliver({ id: 'evt_raw', body });
    expect(r.status).toBe(202);
    const job = await postJob(t, 'still-json', { operation: 'charge', input: { amount: 3 } });
    expect(job.status).toBe(202);
  });

  it('a json:/pointer event id works the same way, read from the signed body', async () => {
    const body = (n: number) => JSON.stringify({ amount: n, order: { id: 4711 } });
    const a = await deliver({ source: 'orders', id: 'msg-a', body: body(1) });
    const b = await deliver({ source: 'orders', id: 'msg-b', body: body(1) });
    expect(a.status).toBe(202);
    expect(b.headers.get('idempotent-replayed')).toBe('true');
    expect(await b.text()).toBe(await a.text());
    expect(
      await count(
        `SELECT 1 FROM onejob.jobs WHERE owner_id = 'shop' AND idempotency_key = 'inbox:orders:4711'`,
      ),
    ).toBe(1);
  });
});
