import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OWNER_A, OWNER_B, startTestApp, type TestApp } from '../helpers/startTestApp.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
  await t.onejob.pool.query(
    `INSERT INTO onejob.inbox_events (source, event_id, owner_id, job_id, response_status, response_body, payload_digest, deliveries, differing_payloads)
     VALUES ('payments', 'evt_a1', $1, '0190a0b0-0000-7000-8000-0000000000a1', 202, '{"jobId":"0190a0b0-0000-7000-8000-0000000000a1"}', 'a', 4, 1),
            ('crm', 'evt_a2', $1, '0190a0b0-0000-7000-8000-0000000000a2', 202, '{"jobId":"0190a0b0-0000-7000-8000-0000000000a2"}', 'b', 1, 0),
            ('payments', 'evt_b1', $2, '0190a0b0-0000-7000-8000-0000000000b1', 202, '{"jobId":"0190a0b0-0000-7000-8000-0000000000b1"}', 'c', 1, 0)`,
    [OWNER_A.owner, OWNER_B.owner],
  );
});
afterAll(async () => t?.close());

describe('GET /v1/inbox-events', () => {
  it("lists only the token owner's events, with delivery counts, filtered by source", async () => {
    const all = (await (await t.request('/v1/inbox-events')).json()) as { items: { eventId: string }[] };
    expect(all.items.map((e) => e.eventId).sort()).toEqual(['evt_a1', 'evt_a2']);
    const payments = await (await t.request('/v1/inbox-events?source=payments')).json();
    expect(payments.items).toEqual([
      expect.objectContaining({ source: 'payments', eventId: 'evt_a1', deliveries: 4, differingPayloads: 1 }),
    ]);
    const b = await (await t.request('/v1/inbox-events', { token: OWNER_B.token })).json();
    expect(b.items.map((e: { eventId: string }) => e.eventId)).toEqual(['evt_b1']);
  });

  it('needs a bearer token (unlike POST /v1/inbox/{source}) and is in the OpenAPI document', async () => {
    const anonymous = await t.request('/v1/inbox-events', { token: null });
    expect(anonymous.status).toBe(401);
    const spec = (await (await t.request('/openapi.json', { token: null })).json()) as {
      paths: Record<string, { get?: unknown }>;
    };
    expect(spec.paths['/v1/inbox-events']?.get).toBeDefined();
  });
});
