import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countRows } from '../helpers/countRows.js';
import { OWNER_B, postJob, startTestApp, type TestApp } from '../helpers/startTestApp.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

const count = (sql: string, params: unknown[] = []) => countRows(t.onejob.pool, sql, params);

describe('job intake', () => {
  it('50 concurrent POSTs with one key and body return one job id, one row and one created event', async () => {
    const body = { operation: 'charge', input: { amount: 1999 } };
    const responses = await Promise.all(Array.from({ length: 50 }, () => postJob(t, 'double-click', body)));
    const ids = new Set<string>();
    for (const r of responses) {
      expect(r.status).toBe(202);
      ids.add(((await r.json()) as { id: string }).id);
    }
    expect(ids.size).toBe(1);
    const [id] = [...ids];
    expect(responses.filter((r) => r.headers.get('idempotent-replayed') === 'true')).toHaveLength(49);
    expect(
      await count(
        `SELECT 1 FROM onejob.jobs WHERE owner_id = 'owner-a' AND idempotency_key = 'double-click'`,
      ),
    ).toBe(1);
    expect(await count(`SELECT 1 FROM onejob.job_events WHERE job_id = $1 AND type = 'created'`, [id])).toBe(
      1,
    );
    expect(
      await count(`SELECT 1 FROM onejob.outbox WHERE subject = $1 AND type = 'onejob.job.created'`, [id]),
    ).toBe(1);
  });

  it('the same key with a different body is a 409 and writes nothing', async () => {
    const first = await postJob(t, 'scope', { operation: 'charge', input: { amount: 10 } });
    expect(first.status).toBe(202);
    const job = (await first.json()) as { id: string; version: number; updatedAt: string };
    const before = await count('SELECT 1 FROM onejob.job_events');
    const second = await postJob(t, 'scope', { operation: 'charge', input: { amount: 11 } });
    expect(second.status).toBe(409);
    expect(second.headers.get('content-type')).toMatch(/application\/problem\+json/);
    const problem = (await second.json()) as { code: string; jobId: string };
    expect(problem.code).toBe('idempotency_key_reused');
    expect(problem.jobId).toBe(job.id);
    expect(await count('SELECT 1 FROM onejob.job_events')).toBe(before);
    const after = (await (await t.request(`/v1/jobs/${job.id}`)).json()) as {
      input: unknown;
      version: number;
    };
    expect(after.input).toEqual({ amount: 10 });
  });

  it('25 requests with body A and 25 with body B under one key make one job; each got it or a 409', async () => {
    const a = { operation: 'charge', input: { amount: 1 } };
    const b = { operation: 'charge', input: { amount: 2 } };
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, i) => postJob(t, 'split-brain', i % 2 ? a : b)),
    );
    const bodies = await Promise.all(
      responses.map((r) => r.json() as Promise<{ id?: string; code?: string; input?: unknown }>),
    );
    const jobs = await t.onejob.pool.query(
      `SELECT id, input FROM onejob.jobs WHERE idempotency_key = 'split-brain'`,
    );
    expect(jobs.rowCount).toBe(1);
    const winner = jobs.rows[0];
    responses.forEach((r, i) => {
      const sent = i % 2 ? a : b;
      if (r.status === 202) {
        expect(bodies[i]?.id).toBe(winner.id);
        expect(sent.input).toEqual(winner.input);
      } else {
        expect(r.status).toBe(409);
        expect(bodies[i]?.code).toBe('idempotency_key_reused');
        expect(sent.input).not.toEqual(winner.input);
      }
    });
  });

  it('the key is scoped to its owner: two owners, one key, two jobs; B cannot read A', async () => {
    const body = { operation: 'charge', input: { amount: 5 } };
    const ra = await postJob(t, 'shared-key', body);
    const rb = await postJob(t, 'shared-key', body, OWNER_B.token);
    const ja = (await ra.json()) as { id: string };
    const jb = (await rb.json()) as { id: string };
    expect(ra.status).toBe(202);
    expect(rb.status).toBe(202);
    expect(rb.headers.get('idempotent-replayed')).toBeNull();
    expect(ja.id).not.toBe(jb.id);
    const cross = await t.request(`/v1/jobs/${ja.id}`, { token: OWNER_B.token });
    expect(cross.status).toBe(404);
    expect(((await cross.json()) as { code: string }).code).toBe('job_not_found');
  });

  it('key order and whitespace do not change the fingerprint: a reordered body replays', async () => {
    const r1 = await postJob(t, 'canonical', { operation: 'charge', input: { amount: 7, currency: 'EUR' } });
    const r2 = await t.request('/v1/jobs', {
      method: 'POST',
      headers: { 'idempotency-key': 'canonical', 'content-type': 'application/json' },
      body: '{ "input": {"currency":"EUR",  "amount": 7.0}, "operation": "charge" }',
    });
    expect(r2.status).toBe(202);
    expect(r2.headers.get('idempotent-replayed')).toBe('true');
    expect(((await r2.json()) as { id: string }).id).toBe(((await r1.json()) as { id: string }).id);
  });

  it('GET returns the job with a Location the POST named', async () => {
    const r = await postJob(t, 'locate', { operation: 'charge', input: { amount: 3 } });
    const location = r.headers.get('location');
    expect(location).toMatch(/^\/v1\/jobs\/[0-9a-f-]{36}$/);
    const got = await t.request(location!);
    expect(got.status).toBe(200);
    const job = (await got.json()) as Record<string, unknown>;
    expect(job).toMatchObject({
      operation: 'charge',
      state: 'queued',
      version: 1,
      idempotencyKey: 'locate',
      input: { amount: 3 },
      result: null,
      completedBy: null,
      attempts: [],
    });
  });

  it('lists jobs newest first with keyset pagination and filters', async () => {
    for (let i = 0; i < 5; i++)
      await postJob(t, `page-${i}`, { operation: 'charge', input: { amount: 100 + i } }, OWNER_B.token);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const r = await t.request(`/v1/jobs?limit=2${cursor ? `&cursor=${cursor}` : ''}`, {
        token: OWNER_B.token,
      });
      const page = (await r.json()) as { items: { idempotencyKey: string }[]; nextCursor: string | null };
      seen.push(...page.items.map((j) => j.idempotencyKey));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen.filter((k) => k.startsWith('page-'))).toEqual([
      'page-4',
      'page-3',
      'page-2',
      'page-1',
      'page-0',
    ]);
    const byKey = await t.request('/v1/jobs?idempotencyKey=page-2', { token: OWNER_B.token });
    expect(((await byKey.json()) as { items: unknown[] }).items).toHaveLength(1);
    const bad = await t.request('/v1/jobs?cursor=bm9wZQ', { token: OWNER_B.token });
    expect(bad.status).toBe(400);
  });

  it('waitMs holds the request until the job settles', async () => {
    const r = await postJob(t, 'wait-me', { operation: 'charge', input: { amount: 3 } });
    const job = (await r.json()) as { id: string };
    const waiting = t.request(`/v1/jobs/${job.id}?waitMs=20000`);
    // The gate: the waiter is parked before the job changes (it has not answered yet).
    const early = await Promise.race([
      waiting.then(() => 'answered'),
      new Promise((r) => setTimeout(() => r('parked'), 300)),
    ]);
    expect(early).toBe('parked');
    await t.onejob.pool.query(
      `UPDATE onejob.jobs SET state = 'cancelled', version = version + 1, finished_at = now() WHERE id = $1`,
      [job.id],
    );
    const settled = (await (await waiting).json()) as { state: string };
    expect(settled.state).toBe('cancelled');
  });
});
