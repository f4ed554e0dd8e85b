import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RetryInfo } from '../../src/client/index.js';
import { createClient, newIntentKey, OnejobClientError } from '../../src/client/index.js';
import { OWNER_A, OWNER_B, startTestApp, type TestApp } from '../helpers/startTestApp.js';
import { type ProxyAction, type SeenRequest, startFaultyProxy } from './faultyProxy.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

const fast = { baseDelayMs: 1, maxDelayMs: 5 };

/** A client that reaches the app through a proxy answering with `script` before forwarding. */
async function clientBehind(
  script: (req: SeenRequest) => ProxyAction,
  retry: Parameters<typeof createClient>[0]['retry'] = fast,
) {
  const proxy = await startFaultyProxy(t.url, script);
  const retries: RetryInfo[] = [];
  const client = createClient({
    baseUrl: proxy.url,
    token: OWNER_A.token,
    retry: retry === false ? false : { ...retry, beforeRetry: (i) => void retries.push(i) },
  });
  return { proxy, client, retries };
}

describe('client against a real server', () => {
  it('two creates with one intent key return one job; the second is marked replayed', async () => {
    const client = createClient({ baseUrl: t.url, token: OWNER_A.token });
    const key = newIntentKey('order-');
    const [a, b] = await Promise.all([
      client.jobs.submit('charge', { amount: 1999 }, { idempotencyKey: key }),
      client.jobs.submit('charge', { amount: 1999 }, { idempotencyKey: key }),
    ]);
    expect(a.job.id).toBe(b.job.id);
    expect([a.replayed, b.replayed].sort()).toEqual([false, true]);
    const rows = await t.onejob.pool.query('SELECT id FROM onejob.jobs WHERE idempotency_key = $1', [key]);
    expect(rows.rows).toEqual([{ id: a.job.id }]);
  });

  it('503 and 429 are retried with the same key, honouring Retry-After as a floor', async () => {
    const { proxy, client, retries } = await clientBehind((r) =>
      r.n === 1
        ? {
            kind: 'respond',
            status: 503,
            headers: { 'retry-after': '1' },
            body: { status: 503, code: 'database_unavailable' },
          }
        : r.n === 2
          ? { kind: 'respond', status: 429, body: { status: 429, code: 'rate_limited' } }
          : { kind: 'forward' },
    );
    try {
      const key = newIntentKey();
      const { job, tries } = await client.jobs.submit('charge', { amount: 5 }, { idempotencyKey: key });
      expect(tries).toBe(3);
      expect(proxy.seen.map((s) => s.idempotencyKey)).toEqual([key, key, key]);
      expect(retries.map((r) => r.status)).toEqual([503, 429]);
      expect(retries[0]!.delayMs).toBeGreaterThanOrEqual(1000);
      expect(job.idempotencyKey).toBe(key);
    } finally {
      await proxy.close();
    }
  });

  it('a response lost after the server committed is retried and gets the same job id', async () => {
    const { proxy, client, retries } = await clientBehind((r) =>
      r.n === 1 ? { kind: 'lose-response' } : { kind: 'forward' },
    );
    try {
      const key = newIntentKey();
      const { job, replayed, tries } = await client.jobs.submit(
        'charge',
        { amount: 7 },
        { idempotencyKey: key },
      );
      expect([replayed, tries]).toEqual([true, 2]);
      expect(retries[0]?.status).toBe(0);
      const rows = await t.onejob.pool.query('SELECT id FROM onejob.jobs WHERE idempotency_key = $1', [key]);
      expect(rows.rows).toEqual([{ id: job.id }]);
    } finally {
      await proxy.close();
    }
  });

  it('a 409 for a reused key is thrown once, typed, with the existing job id, and never retried', async () => {
    const { proxy, client } = await clientBehind(() => ({ kind: 'forward' }));
    try {
      const key = newIntentKey();
      const first = await client.jobs.create('charge', { amount: 1 }, { idempotencyKey: key });
      const error = await client.jobs
        .create('charge', { amount: 2 }, { idempotencyKey: key })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(OnejobClientError);
      const e = error as OnejobClientError;
      expect([e.code, e.status, e.tries]).toEqual(['idempotency_key_reused', 409, 1]);
      expect(e.problem?.jobId).toBe(first.id);
      expect(proxy.seen).toHaveLength(2);
    } finally {
      await proxy.close();
    }
  });

  it('runAt passes through: a Date is sent as its instant, the view shows it, another runAt is a 409', async () => {
    const client = createClient({ baseUrl: t.url, token: OWNER_A.token });
    const key = newIntentKey();
    const runAt = new Date(Date.UTC(2034, 4, 6, 7, 8, 9, 10));
    const job = await client.jobs.create('charge', { amount: 3 }, { idempotencyKey: key, runAt });
    expect(job.runAt).toBe('2034-05-06T07:08:09.010Z');
    const { rows } = await t.onejob.pool.query('SELECT run_at FROM onejob.jobs WHERE id = $1', [job.id]);
    expect(rows[0].run_at.toISOString()).toBe('2034-05-06T07:08:09.010Z');
    // The same instant as a string in another zone is the same request.
    const again = await client.jobs.submit(
      'charge',
      { amount: 3 },
      { idempotencyKey: key, runAt: '2034-05-06T09:08:09.010+02:00' },
    );
    expect([again.job.id, again.replayed]).toEqual([job.id, true]);
    const error = await client.jobs
      .create('charge', { amount: 3 }, { idempotencyKey: key, runAt: new Date(runAt.getTime() + 1) })
      .catch((e: unknown) => e);
    expect((error as OnejobClientError).code).toBe('idempotency_key_reused');
    const bad = await client.jobs
      .create('charge', { amount: 3 }, { idempotencyKey: newIntentKey(), runAt: 'next tuesday' })
      .catch((e: unknown) => e);
    expect([(bad as OnejobClientError).code, (bad as OnejobClientError).status]).toEqual([
      'request_invalid',
      400,
    ]);
  });

  it('other 4xx answers (422, 401, 404) are thrown with their code and sent once', async () => {
    const { proxy, client } = await clientBehind(() => ({ kind: 'forward' }));
    try {
      const invalid = await client.jobs
        .create('charge', { amount: -1 }, { idempotencyKey: newIntentKey() })
        .catch((e) => e);
      expect([invalid.code, invalid.status]).toEqual(['input_invalid', 422]);
      const unknownOp = await client.jobs
        .create('nope', {}, { idempotencyKey: newIntentKey() })
        .catch((e) => e);
      expect(unknownOp.code).toBe('operation_unknown');
      const missing = await client.jobs.get('00000000-0000-4000-8000-000000000000').catch((e) => e);
      expect([missing.code, missing.status]).toEqual(['job_not_found', 404]);
      const badToken = createClient({ baseUrl: proxy.url, token: 'wrong', retry: fast });
      const unauthorized = await badToken.jobs.list().catch((e) => e);
      expect([unauthorized.code, unauthorized.status]).toEqual(['unauthorized', 401]);
      expect(proxy.seen).toHaveLength(4);
    } finally {
      await proxy.close();
    }
  });

  it('gives up after maxTries with a network_error that counts the tries', async () => {
    const { proxy, client } = await clientBehind(() => ({ kind: 'drop' }), { ...fast, maxTries: 3 });
    try {
      const error = await client.jobs
        .create('charge', { amount: 1 }, { idempotencyKey: 'k' })
        .catch((e) => e);
      expect(error).toBeInstanceOf(OnejobClientError);
      expect([error.code, error.status, error.tries]).toEqual(['network_error', 0, 3]);
      expect(proxy.seen).toHaveLength(3);
    } finally {
      await proxy.close();
    }
  });

  it('commands without a key (cancel, attempts) are not resent after a lost response', async () => {
    const { proxy, client } = await clientBehind(() => ({ kind: 'drop' }));
    try {
      const error = await client.jobs.cancel('00000000-0000-4000-8000-000000000000').catch((e) => e);
      expect(error.code).toBe('network_error');
      expect(proxy.seen).toHaveLength(1);
    } finally {
      await proxy.close();
    }
  });

  it('an aborted signal stops the retries', async () => {
    const controller = new AbortController();
    const { proxy, client } = await clientBehind(
      (r) => {
        if (r.n === 2) controller.abort(new Error('user left the page'));
        return { kind: 'respond', status: 503, body: { status: 503, code: 'database_unavailable' } };
      },
      { baseDelayMs: 50, maxDelayMs: 50, maxTries: 10 },
    );
    try {
      const error = await client.jobs
        .create('charge', { amount: 1 }, { idempotencyKey: 'k2', signal: controller.signal })
        .catch((e) => e);
      expect((error as Error).message).toBe('user left the page');
      expect(proxy.seen).toHaveLength(2);
    } finally {
      await proxy.close();
    }
  });

  it('a stalled answer past the per-try timeout is retried with the same key', async () => {
    // The first request is held by the proxy until the second has come and gone.
    let release!: () => void;
    const held = new Promise<string>((resolve) => {
      release = () => resolve(t.url);
    });
    const proxy = await startFaultyProxy(t.url);
    proxy.setTarget(held);
    const client = createClient({
      baseUrl: proxy.url,
      token: OWNER_A.token,
      timeoutMs: 1000,
      retry: { ...fast, beforeRetry: () => release() },
    });
    try {
      const key = newIntentKey();
      const { job, tries } = await client.jobs.submit('charge', { amount: 9 }, { idempotencyKey: key });
      // Two tries, or more on a loaded machine where a retry also outlives the timeout: always one key.
      expect(tries).toBeGreaterThanOrEqual(2);
      expect(new Set(proxy.seen.map((s) => s.idempotencyKey))).toEqual(new Set([key]));
      const rows = await t.onejob.pool.query('SELECT id FROM onejob.jobs WHERE idempotency_key = $1', [key]);
      expect(rows.rows).toEqual([{ id: job.id }]);
    } finally {
      await proxy.close();
    }
  });

  it('wait long-polls until the job settles', async () => {
    const client = createClient({ baseUrl: t.url, token: OWNER_A.token });
    const job = await client.jobs.create('charge', { amount: 3 }, { idempotencyKey: newIntentKey() });
    const waiting = client.jobs.wait(job.id, { timeoutMs: 20_000 });
    await t.onejob.pool.query(
      `UPDATE onejob.jobs SET state = 'failed', version = version + 1, error = '{"code":"test"}' WHERE id = $1`,
      [job.id],
    );
    const settled = await waiting;
    expect(settled.state).toBe('failed');
    expect(settled.id).toBe(job.id);
  });

  it('wait returns the job as it is when the timeout passes first', async () => {
    const client = createClient({ baseUrl: t.url, token: OWNER_A.token });
    const job = await client.jobs.create('charge', { amount: 4 }, { idempotencyKey: newIntentKey() });
    const still = await client.jobs.wait(job.id, { timeoutMs: 300 });
    expect(still.state).toBe('queued');
  });

  it('list filters by key and operation, and iterate walks every page of one owner only', async () => {
    const b = createClient({ baseUrl: t.url, token: OWNER_B.token });
    const keys = Array.from({ length: 5 }, (_, i) => `iter-${i}`);
    for (const k of keys) await b.jobs.create('charge', { amount: 10 }, { idempotencyKey: k });
    await b.jobs.create('summarize', { text: 'hello' }, { idempotencyKey: 'iter-summary' });
    const seen: string[] = [];
    for await (const job of b.jobs.iterate({ limit: 2, operation: 'charge' })) seen.push(job.idempotencyKey);
    expect(seen).toEqual([...keys].reverse());
    const byKey = await b.jobs.list({ idempotencyKey: 'iter-summary' });
    expect(byKey.items.map((j) => j.operation)).toEqual(['summarize']);
    const a = createClient({ baseUrl: t.url, token: OWNER_A.token });
    expect((await a.jobs.list({ idempotencyKey: 'iter-1' })).items).toEqual([]);
  });

  it('refuses to create a job without an intent key, before sending anything', async () => {
    const { proxy, client } = await clientBehind(() => ({ kind: 'forward' }));
    try {
      await expect(client.jobs.create('charge', { amount: 1 }, { idempotencyKey: '' })).rejects.toThrow(
        /idempotencyKey/,
      );
      expect(proxy.seen).toHaveLength(0);
    } finally {
      await proxy.close();
    }
  });
});
