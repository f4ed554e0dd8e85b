import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { markDead } from '../helpers/deadLetters.js';
import { ADMIN_TOKEN, OWNER_B, postJob, startTestApp, type TestApp } from '../helpers/startTestApp.js';

// The dashboard's summaries and the operator endpoints read the outbox through the same
// domain queries; the dashboard's only difference is the owner filter. These tests pin the
// dashboard's JSON field by field so that sharing the query changes no answer.

let t: TestApp;
let jobA1: string;
let jobA2: string;
let jobB: string;

const iso = (d: Date) => d.toISOString();

beforeAll(async () => {
  t = await startTestApp();
  await t.onejob.pool.query(`INSERT INTO onejob.outbox_publishers (name, kind) VALUES ('log', 'log')`);
  const id = async (key: string, token?: string) =>
    (
      (await (await postJob(t, key, { operation: 'charge', input: { amount: 1 } }, token)).json()) as {
        id: string;
      }
    ).id;
  jobA1 = await id('summary-a1');
  jobA2 = await id('summary-a2');
  jobB = await id('summary-b', OWNER_B.token);
  await markDead(t.onejob.pool, jobA2, 'log');
});
afterAll(async () => t?.close());

async function deliveries(subjects: string[]) {
  const { rows } = await t.onejob.pool.query<{
    event_id: string;
    publisher: string;
    subject: string;
    state: string;
    created_at: Date;
    dead_at: Date | null;
  }>(
    `SELECT event_id, publisher, subject, state, created_at, dead_at FROM onejob.outbox_deliveries
     WHERE subject = ANY ($1) ORDER BY created_at`,
    [subjects],
  );
  return rows;
}

describe("the dashboard's outbox summary", () => {
  it("counts the owner's deliveries per publisher and state, published or not, with the oldest of each", async () => {
    const rows = await deliveries([jobA1, jobA2]);
    const oldest = (publisher: string, state: string) =>
      iso(rows.filter((r) => r.publisher === publisher && r.state === state)[0]!.created_at);
    const dead = rows.find((r) => r.state === 'dead')!;
    const response = await t.request('/v1/dashboard/outbox');
    expect(response.status).toBe(200);
    expect(await response.text()).toBe(
      JSON.stringify({
        backlog: [
          { publisher: 'log', state: 'dead', count: 1, oldestAt: oldest('log', 'dead') },
          { publisher: 'log', state: 'pending', count: 1, oldestAt: oldest('log', 'pending') },
        ],
        deadLetters: [
          {
            eventId: dead.event_id,
            publisher: 'log',
            jobId: jobA2,
            type: 'onejob.job.created',
            attempts: 5,
            replays: 0,
            lastError: 'refused',
            deadAt: iso(dead.dead_at!),
          },
        ],
      }),
    );
  });

  it("shows another owner none of this owner's deliveries or dead letters", async () => {
    const rows = await deliveries([jobB]);
    const body = (await (await t.request('/v1/dashboard/outbox', { token: OWNER_B.token })).json()) as {
      backlog: { publisher: string; state: string; count: number }[];
      deadLetters: unknown[];
    };
    expect(rows).toHaveLength(1);
    expect(body.backlog.map((b) => [b.publisher, b.state, b.count])).toEqual([['log', 'pending', 1]]);
    expect(body.deadLetters).toEqual([]);
  });
});

describe('the operator backlog over the same query', () => {
  it('counts every owner per registered publisher and leaves out unregistered ones', async () => {
    const response = await t.request('/v1/outbox/backlog', { token: ADMIN_TOKEN });
    const body = (await response.json()) as {
      publishers: {
        publisher: string;
        kind: string;
        pending: number;
        dead: number;
        oldestAgeSeconds: number;
      }[];
    };
    expect(body.publishers.map((p) => [p.publisher, p.kind, p.pending, p.dead])).toEqual([
      ['log', 'log', 2, 1],
    ]);
    expect(Object.keys(body.publishers[0]!)).toEqual([
      'publisher',
      'kind',
      'pending',
      'dead',
      'oldestAgeSeconds',
    ]);
    expect(body.publishers[0]!.oldestAgeSeconds).toBeGreaterThan(0);
  });

  it("an owner-scoped backlog through the handle counts only that owner's jobs", async () => {
    const a = await t.onejob.outbox.backlog({ ownerId: 'owner-a' });
    const b = await t.onejob.outbox.backlog({ ownerId: OWNER_B.owner });
    const nobody = await t.onejob.outbox.backlog({ ownerId: 'owner-without-jobs' });
    expect(a.map((p) => [p.publisher, p.pending, p.dead])).toEqual([['log', 1, 1]]);
    expect(b.map((p) => [p.publisher, p.pending, p.dead])).toEqual([['log', 1, 0]]);
    expect(nobody).toEqual([{ publisher: 'log', kind: 'log', pending: 0, dead: 0, oldestAgeSeconds: 0 }]);
  });

  it("dead letters through the handle filter by owner, and the admin list still sees every owner's", async () => {
    expect((await t.onejob.outbox.deadLetters.list({ ownerId: OWNER_B.owner })).items).toEqual([]);
    const all = await t.onejob.outbox.deadLetters.list();
    expect(all.items.map((d) => d.subject)).toEqual([jobA2]);
    expect((await t.onejob.outbox.deadLetters.list({ ownerId: 'owner-a' })).items).toEqual(all.items);
  });
});

describe("the dashboard's inbox summary", () => {
  it('answers the same fields in the same order, newest first', async () => {
    await t.onejob.pool.query(
      `INSERT INTO onejob.inbox_events (source, event_id, owner_id, job_id, response_status, response_body, payload_digest, deliveries, differing_payloads, first_received_at, last_received_at)
       VALUES ('payments', 'evt_old', 'owner-a', $1, 202, '{}', 'x', 2, 1, now() - interval '1 minute', now()),
              ('payments', 'evt_new', 'owner-a', NULL, NULL, NULL, 'y', 1, 0, now(), now()),
              ('orders', 'evt_b', 'owner-b', NULL, NULL, NULL, 'z', 1, 0, now(), now())`,
      [jobA1],
    );
    const { rows } = await t.onejob.pool.query<{ event_id: string; first: Date; last: Date }>(
      `SELECT event_id, first_received_at AS first, last_received_at AS last FROM onejob.inbox_events
       WHERE owner_id = 'owner-a' ORDER BY first_received_at DESC`,
    );
    const at = (id: string) => rows.find((r) => r.event_id === id)!;
    const response = await t.request('/v1/dashboard/inbox?source=payments');
    expect(await response.text()).toBe(
      JSON.stringify({
        items: [
          {
            source: 'payments',
            eventId: 'evt_new',
            jobId: null,
            deliveries: 1,
            redeliveries: 0,
            differingPayloads: 0,
            responseStatus: null,
            firstReceivedAt: iso(at('evt_new').first),
            lastReceivedAt: iso(at('evt_new').last),
          },
          {
            source: 'payments',
            eventId: 'evt_old',
            jobId: jobA1,
            deliveries: 2,
            redeliveries: 1,
            differingPayloads: 1,
            responseStatus: 202,
            firstReceivedAt: iso(at('evt_old').first),
            lastReceivedAt: iso(at('evt_old').last),
          },
        ],
      }),
    );
    const limited = (await (await t.request('/v1/dashboard/inbox?limit=1')).json()) as {
      items: { eventId: string }[];
    };
    expect(limited.items.map((e) => e.eventId)).toEqual(['evt_new']);
    const b = (await (await t.request('/v1/dashboard/inbox', { token: OWNER_B.token })).json()) as {
      items: { eventId: string }[];
    };
    expect(b.items.map((e) => e.eventId)).toEqual(['evt_b']);
  });
});
