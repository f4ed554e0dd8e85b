import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OWNER_B, type TestApp, postJob, startTestApp } from '../helpers/startTestApp.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

describe('dashboard routes', () => {
  it('the page and its assets need no token and carry no data', async () => {
    const page = await t.request('/', { token: null });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(page.headers.get('content-security-policy')).toMatch(/script-src 'self'/);
    const html = await page.text();
    expect(html).toContain('<script type="module" src="/ui/app.js">');
    for (const asset of ['/ui/app.js', '/ui/timeline.js', '/ui/style.css']) {
      const r = await t.request(asset, { token: null });
      expect(r.status, asset).toBe(200);
    }
    expect((await t.request('/ui/%2e%2e%2fpackage.json', { token: null })).status).toBe(404);
    expect((await t.request('/ui/nope.js', { token: null })).status).toBe(404);
  });

  it("a job's events and deliveries are its owner's only: another owner gets 404", async () => {
    const job = (await (
      await postJob(t, 'events-1', { operation: 'charge', input: { amount: 1 } })
    ).json()) as { id: string };
    const events = await t.request(`/v1/jobs/${job.id}/events`);
    expect(events.status).toBe(200);
    const body = (await events.json()) as { items: { type: string; createdAt: string }[] };
    expect(body.items.map((e) => e.type)).toEqual(['created']);
    const deliveries = (await (await t.request(`/v1/jobs/${job.id}/deliveries`)).json()) as {
      items: { type: string }[];
    };
    expect(deliveries.items.map((d) => d.type)).toEqual(['onejob.job.created']);
    for (const path of [`/v1/jobs/${job.id}/events`, `/v1/jobs/${job.id}/deliveries`]) {
      const other = await t.request(path, { token: OWNER_B.token });
      expect(other.status).toBe(404);
      expect(((await other.json()) as { code: string }).code).toBe('job_not_found');
      expect((await t.request(path, { token: null })).status).toBe(401);
    }
  });

  it('the inbox and outbox summaries are scoped to the owner', async () => {
    const outbox = (await (await t.request('/v1/dashboard/outbox', { token: OWNER_B.token })).json()) as {
      backlog: unknown[];
      deadLetters: unknown[];
    };
    expect(outbox).toEqual({ backlog: [], deadLetters: [] });
    await t.onejob.pool.query(
      `INSERT INTO onejob.inbox_events (source, event_id, owner_id, job_id, response_status, response_body, payload_digest, deliveries)
       VALUES ('payments', 'evt_1', 'owner-a', gen_random_uuid(), 202, '{}', 'x', 4)`,
    );
    const a = (await (await t.request('/v1/dashboard/inbox')).json()) as {
      items: { eventId: string; redeliveries: number }[];
    };
    expect(a.items.map((e) => [e.eventId, e.redeliveries])).toEqual([['evt_1', 3]]);
    const b = (await (await t.request('/v1/dashboard/inbox', { token: OWNER_B.token })).json()) as {
      items: unknown[];
    };
    expect(b.items).toEqual([]);
  });
});
