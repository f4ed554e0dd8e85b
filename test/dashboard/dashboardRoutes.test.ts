import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobEvents } from '../helpers/jobEventStream.js';
import { OWNER_B, postJob, startTestApp, type TestApp } from '../helpers/startTestApp.js';

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
    const modules = readdirSync(fileURLToPath(new URL('../../src/dashboard/assets/', import.meta.url)))
      .filter((name) => name.endsWith('.js'))
      .map((name) => `/ui/${name}`);
    expect(modules).toEqual(expect.arrayContaining(['/ui/app.js', '/ui/timeline.js', '/ui/view.js']));
    for (const asset of [...modules, '/ui/style.css', '/ui/favicon.svg']) {
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

  it('/favicon.ico answers the icon without a token, so no page load logs a 401', async () => {
    const icon = await t.request('/favicon.ico', { token: null });
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toMatch(/image\/svg\+xml/);
    expect(await icon.text()).toContain('<svg');
  });

  it('the job stream sends the job at once and again when it settles, then ends; it is the owner’s only', async () => {
    const job = (await (
      await postJob(t, 'stream-1', { operation: 'charge', input: { amount: 1 } })
    ).json()) as { id: string };
    expect((await t.request(`/v1/dashboard/jobs/${job.id}/stream`, { token: OWNER_B.token })).status).toBe(
      404,
    );
    expect((await t.request(`/v1/dashboard/jobs/${job.id}/stream`, { token: null })).status).toBe(401);

    const stream = await t.request(`/v1/dashboard/jobs/${job.id}/stream`);
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toMatch(/text\/event-stream/);
    const nextJob = jobEvents(stream);
    expect((await nextJob())?.state).toBe('queued');
    // Settled through the engine: the stream wakes, sends the cancelled job and ends.
    await t.onejob.attempts.cancel('owner-a', job.id);
    expect((await nextJob())?.state).toBe('cancelled');
    expect(await nextJob()).toBeNull();
  });

  it('closing the server ends the job streams still open, so shutdown never waits on a watching page', async () => {
    const other = await startTestApp({ db: t.db });
    try {
      const job = (await (
        await postJob(other, 'stream-open', { operation: 'charge', input: { amount: 1 } })
      ).json()) as { id: string };
      const stream = await other.request(`/v1/dashboard/jobs/${job.id}/stream`);
      const reader = stream.body!.getReader();
      expect((await reader.read()).done).toBe(false);
      // The job never settles: only the server's close can end this stream.
      await other.app.close();
      let done = false;
      while (!done) done = (await reader.read()).done;
      expect(done).toBe(true);
    } finally {
      await other.onejob.close();
    }
  });
});
