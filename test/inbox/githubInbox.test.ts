import { createHash, createHmac, randomBytes, randomUUID } from 'node:crypto';
import { sign } from '@octokit/webhooks-methods';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/defaultConfig.js';
import type { OnejobConfig } from '../../src/config/types.js';
import { countRows, inboxWrites } from '../helpers/countRows.js';
import { deliverTogether } from '../helpers/deliverTogether.js';
import { startTestApp, type TestApp } from '../helpers/startTestApp.js';

const SECRET = randomBytes(24).toString('hex');
process.env.ONEJOB_TEST_GITHUB_SECRET = SECRET;

const base = structuredClone(defaultConfig);
const common = {
  scheme: 'github',
  secretEnv: 'ONEJOB_TEST_GITHUB_SECRET',
  operation: 'github-event',
  ownerId: 'octo',
} as const;
const config: OnejobConfig = {
  ...base,
  operations: {
    ...base.operations,
    'github-event': {
      ...(base.operations.charge as OnejobConfig['operations'][string]),
      inputSchema: { type: 'object', additionalProperties: true },
    },
  },
  // One delivery per transaction, as separate processes would send them: the race test
  // below needs ten deliveries inside the database at once. Batched deliveries are
  // covered in deliveryGroupCommit.test.ts.
  intake: { maxBatchSize: 1 },
  inbox: {
    sources: {
      gh: { ...common },
      'gh-legacy': { ...common, allowSha1: true },
      'gh-delivery': { ...common, eventId: 'header:x-github-delivery', unsignedEventId: true },
    },
  },
};

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ config });
});
afterAll(async () => t?.close());

const push = (after: string) =>
  JSON.stringify({ ref: 'refs/heads/main', after, repository: { full_name: 'acme/shop' } });

interface Delivery {
  source?: string;
  body: string;
  /** X-Hub-Signature-256; null sends none. */
  sha256?: string | null;
  /** X-Hub-Signature (SHA-1); unset sends none. */
  sha1?: string;
  delivery?: string;
}

/** Posts a delivery with the headers GitHub sends; signed by octokit unless told otherwise. */
async function deliver({ source = 'gh', body, sha256, sha1, delivery = randomUUID() }: Delivery) {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'x-github-event': 'push',
    'x-github-delivery': delivery,
  };
  const signature = sha256 === undefined ? await sign(SECRET, body) : sha256;
  if (signature !== null) headers['x-hub-signature-256'] = signature;
  if (sha1 !== undefined) headers['x-hub-signature'] = sha1;
  return fetch(`${t.url}/v1/inbox/${source}`, { method: 'POST', headers, body });
}

// GitHub's legacy header; octokit no longer produces it, so it is computed here.
const sha1Of = (body: string, secret = SECRET) =>
  `sha1=${createHmac('sha1', secret).update(body).digest('hex')}`;

const count = (sql: string, params: unknown[] = []) => countRows(t.onejob.pool, sql, params);
const written = () => inboxWrites(t.onejob.pool);

describe('github inbox source', () => {
  it("a push signed by octokit creates one job keyed by the body's SHA-256; GitHub's redelivery (new delivery GUID, same body) replays it", async () => {
    const body = push('a1');
    const first = await deliver({ body });
    expect(first.status).toBe(202);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await deliver({ body });
    expect(again.status).toBe(202);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const firstText = await first.text();
    expect(await again.text()).toBe(firstText);

    const eventId = `sha256:${createHash('sha256').update(body).digest('hex')}`;
    const { jobId } = JSON.parse(firstText) as { jobId: string };
    const jobs = await t.onejob.pool.query(
      'SELECT id, owner_id FROM onejob.jobs WHERE idempotency_key = $1',
      [`inbox:gh:${eventId}`],
    );
    expect(jobs.rows).toEqual([{ id: jobId, owner_id: 'octo' }]);
    const events = await t.onejob.pool.query(
      `SELECT deliveries FROM onejob.inbox_events WHERE source = 'gh' AND event_id = $1`,
      [eventId],
    );
    expect(events.rows).toEqual([{ deliveries: 2 }]);
  });

  it('a tampered body, a wrong secret, a missing header or a SHA-1-only delivery is 401 and writes nothing', async () => {
    const before = await written();
    const body = push('b2');
    const cases: [string, Delivery][] = [
      ['tampered body', { body: push('b3'), sha256: await sign(SECRET, body) }],
      ['wrong secret', { body, sha256: await sign(randomBytes(24).toString('hex'), body) }],
      ['missing header', { body, sha256: null }],
      ['SHA-1 only, not allowed', { body, sha256: null, sha1: sha1Of(body) }],
      [
        'SHA-1 only, wrong secret',
        { source: 'gh-legacy', body, sha256: null, sha1: sha1Of(body, 'x'.repeat(24)) },
      ],
      [
        'bad SHA-256 beside a good SHA-1',
        { source: 'gh-legacy', body, sha256: `sha256=${'0'.repeat(64)}`, sha1: sha1Of(body) },
      ],
      ['no sha256= prefix', { body, sha256: (await sign(SECRET, body)).slice('sha256='.length) }],
    ];
    for (const [what, delivery] of cases) {
      const r = await deliver(delivery);
      expect(r.status, what).toBe(401);
      expect(await r.json(), what).toMatchObject({ code: 'signature_invalid' });
    }
    expect(await written()).toEqual(before);
    const good = await deliver({ body });
    expect(good.status).toBe(202);
    expect(good.headers.get('idempotent-replayed')).toBeNull();
  });

  it('a SHA-1-only delivery is accepted by a source that allows SHA-1, and only there', async () => {
    const body = push('c3');
    const refused = await deliver({ body, sha256: null, sha1: sha1Of(body) });
    expect(refused.status).toBe(401);
    const allowed = await deliver({ source: 'gh-legacy', body, sha256: null, sha1: sha1Of(body) });
    expect(allowed.status).toBe(202);
  });

  it('ten simultaneous identical deliveries, all inside the database at once, make one job', async () => {
    const body = push('d4');
    const signature = await sign(SECRET, body);
    const responses = await deliverTogether(t.onejob.pool, 10, () => deliver({ body, sha256: signature }));
    expect(responses.map((r) => r.status)).toEqual(Array(10).fill(202));
    expect(responses.filter((r) => r.headers.get('idempotent-replayed') === null)).toHaveLength(1);
    expect(new Set(await Promise.all(responses.map((r) => r.text()))).size).toBe(1);
    expect(await count(`SELECT 1 FROM onejob.jobs WHERE owner_id = 'octo' AND input->>'after' = 'd4'`)).toBe(
      1,
    );
  }, 120_000);

  it('with the unsigned X-GitHub-Delivery id, a redelivery replays, but a captured body sent under a new id makes a second job (the documented trade-off)', async () => {
    const body = push('e5');
    const delivery = randomUUID();
    const first = await deliver({ source: 'gh-delivery', body, delivery });
    const again = await deliver({ source: 'gh-delivery', body, delivery });
    expect(first.status).toBe(202);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const replayed = await deliver({ source: 'gh-delivery', body, delivery: randomUUID() });
    expect(replayed.status).toBe(202);
    expect(replayed.headers.get('idempotent-replayed')).toBeNull();
    expect(await count(`SELECT 1 FROM onejob.jobs WHERE owner_id = 'octo' AND input->>'after' = 'e5'`)).toBe(
      2,
    );
  });
});
