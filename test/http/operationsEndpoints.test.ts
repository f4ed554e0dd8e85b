import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJob, startTestApp, type TestApp } from '../helpers/startTestApp.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

describe('operations endpoints', () => {
  it('healthz and readyz answer without a token', async () => {
    expect((await t.request('/healthz', { token: null })).status).toBe(200);
    const ready = await t.request('/readyz', { token: null });
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: 'ready' });
  });

  it('metrics count creations, replays and conflicts', async () => {
    const body = { operation: 'charge', input: { amount: 9 } };
    await postJob(t, 'm-1', body);
    await postJob(t, 'm-1', body);
    await postJob(t, 'm-1', { operation: 'charge', input: { amount: 10 } });
    const text = await (await t.request('/metrics', { token: null })).text();
    expect(text).toMatch(/onejob_jobs_created_total\{operation="charge"\} [1-9]/);
    expect(text).toMatch(/onejob_idempotent_replays_total\{operation="charge"\} [1-9]/);
    expect(text).toMatch(/onejob_idempotency_conflicts_total [1-9]/);
    expect(text).toMatch(/onejob_http_request_duration_seconds_bucket\{.*route="\/v1\/jobs"/);
    expect(text).toMatch(/onejob_process_resident_memory_bytes/);
  });

  it('openapi.json is OpenAPI 3.1 and documents the job routes and problem responses', async () => {
    const spec = (await (await t.request('/openapi.json', { token: null })).json()) as any;
    expect(spec.openapi).toBe('3.1.0');
    expect(Object.keys(spec.paths)).toEqual(expect.arrayContaining(['/v1/jobs', '/v1/jobs/{id}']));
    const post = spec.paths['/v1/jobs'].post;
    expect(Object.keys(post.responses)).toEqual(expect.arrayContaining(['202', '400', '409', '422']));
    expect(JSON.stringify(post.responses['409'])).toContain('application/problem+json');
  });

  it('openapi.json names its shared schemas Job, Attempt and Problem, and every reference resolves', async () => {
    const spec = (await (await t.request('/openapi.json', { token: null })).json()) as any;
    const names = Object.keys(spec.components.schemas);
    expect(names).toEqual(expect.arrayContaining(['Job', 'Attempt', 'Problem']));
    expect(names.filter((n) => n.startsWith('def-'))).toEqual([]);
    const refs = [...JSON.stringify(spec).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map(
      (m) => m[1],
    );
    expect(refs).toContain('Job');
    expect(refs).toContain('Problem');
    for (const ref of refs) expect(names, ref).toContain(ref);
  });

  it('a W3C traceparent sent with the request is kept on the job and its created event', async () => {
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const r = await t.request('/v1/jobs', {
      method: 'POST',
      headers: { 'idempotency-key': 'traced', traceparent },
      json: { operation: 'charge', input: { amount: 1 } },
    });
    const job = (await r.json()) as { id: string };
    const { rows } = await t.onejob.pool.query(`SELECT event FROM onejob.outbox WHERE subject = $1`, [
      job.id,
    ]);
    expect(rows[0].event).toMatchObject({
      specversion: '1.0',
      type: 'onejob.job.created',
      subject: job.id,
      source: 'onejob',
      traceparent,
    });
  });
});
