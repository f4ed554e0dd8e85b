// The claim's rules of who runs next (docs/attempts.md, "Who runs next"), statement by
// statement: owners in turn, the per-owner cap, provider slots and provider pauses.
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { makeProviderSlots } from '../../src/providers/providerSlots.js';
import {
  type ClaimLimits,
  claimQueuedJobs,
  claimUnownedAttempt,
  newOwnerTurns,
  type OwnerTurns,
} from '../../src/worker/claimJobs.js';
import { startTestApp, type TestApp } from '../helpers/startTestApp.js';
import { configWith } from './attemptTestKit.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({
    config: configWith(
      { pay: { kind: 'simulated' } },
      { charge: { kind: 'http', providers: ['pay'], effect: 'exclusive', maxAttempts: 3 } },
    ),
  });
});
afterAll(async () => {
  await t?.close();
});
beforeEach(async () => {
  await t.onejob.pool.query(
    'TRUNCATE onejob.jobs, onejob.attempts, onejob.provider_slots, onejob.provider_pauses CASCADE',
  );
});

const NO_LIMITS: ClaimLimits = { perOwner: null, providers: {} };

function claim(
  limit: number,
  turns: OwnerTurns = newOwnerTurns(),
  limits = NO_LIMITS,
  db: pg.ClientBase | pg.Pool = t.onejob.pool,
) {
  return claimQueuedJobs({ db, keptPlans: false }, t.onejob.operations, {
    id: 'w-test',
    leaseMs: 60_000,
    limit,
    rotation: async () => ['pay'],
    turns,
    limits,
  });
}

/** Queues `n` jobs of each owner straight in SQL, oldest first in the given order of owners. */
async function queue(owners: string[], n: number): Promise<void> {
  await t.onejob.pool.query(
    `INSERT INTO onejob.jobs (id, owner_id, idempotency_key, fingerprint, operation, input, run_after, created_at)
     SELECT gen_random_uuid(), o.owner, o.owner || '-' || g, 'f', 'charge', '{}',
            now() - interval '1 hour', now() - interval '1 hour' + make_interval(secs => g * 0.001 + o.i * 0.0001)
     FROM unnest($1::text[]) WITH ORDINALITY AS o(owner, i), generate_series(1, $2::int) g`,
    [owners, n],
  );
}

async function ownersOf(claimed: Awaited<ReturnType<typeof claim>>): Promise<string[]> {
  const { rows } = await t.onejob.pool.query<{ id: string; owner_id: string }>(
    'SELECT id, owner_id FROM onejob.attempts WHERE id = ANY($1::uuid[])',
    [claimed.map((c) => c.attempt.id)],
  );
  const owner = new Map(rows.map((r) => [r.id, r.owner_id]));
  return claimed.map((c) => owner.get(c.attempt.id)!);
}

describe('owners in turn', () => {
  it('a batch is shared round-robin among the owners with queued jobs, whatever their backlogs', async () => {
    await queue(['big'], 500);
    await queue(['small-1', 'small-2'], 3);
    const owners = await ownersOf(await claim(6));
    expect(owners.sort()).toEqual(['big', 'big', 'small-1', 'small-1', 'small-2', 'small-2']);
  });

  it('the next claim starts with the owner after the last one served, wrapping around', async () => {
    await queue(['a', 'b', 'c', 'd'], 5);
    const turns = newOwnerTurns();
    expect(await ownersOf(await claim(2, turns))).toEqual(['a', 'b']);
    expect(turns.after).toBe('b');
    expect(await ownersOf(await claim(2, turns))).toEqual(['c', 'd']);
    expect(await ownersOf(await claim(3, turns))).toEqual(['a', 'b', 'c']);
    expect(await ownersOf(await claim(2, turns))).toEqual(['d', 'a']);
  });

  it('with one owner the whole batch is its oldest jobs, in order', async () => {
    await queue(['solo'], 50);
    const claimed = await claim(20);
    expect(claimed).toHaveLength(20);
    const { rows } = await t.onejob.pool.query<{ key: string }>(
      `SELECT j.idempotency_key AS key FROM onejob.jobs j WHERE j.state = 'running' ORDER BY j.created_at`,
    );
    expect(rows.map((r) => r.key)).toEqual(Array.from({ length: 20 }, (_, i) => `solo-${i + 1}`));
  });

  it('an owner cut to its share says so, so a short batch is not taken for an empty queue', async () => {
    await queue(['big'], 100);
    await queue(['one'], 1);
    const turns = newOwnerTurns();
    const claimed = await claim(10, turns);
    // 5 each: the owner with one job leaves 4 of its share unused.
    expect(claimed).toHaveLength(6);
    expect(turns.more).toBe(true);
    expect(await claim(10, turns)).toHaveLength(10);
  });
  it('owners whose jobs all wait for a later time do not hold the round back', async () => {
    // 60 owners with only scheduled jobs, before (in the walk's order) one owner with a job due.
    await t.onejob.pool.query(
      `INSERT INTO onejob.jobs (id, owner_id, idempotency_key, fingerprint, operation, input, run_after)
       SELECT gen_random_uuid(), 'later-' || lpad(g::text, 2, '0'), 'k', 'f', 'charge', '{}', now() + interval '1 hour'
       FROM generate_series(1, 60) g`,
    );
    await queue(['now'], 1);
    const turns = newOwnerTurns();
    // A claim of 2 walks at most 40 owners: the first stops among the scheduled ones...
    expect(await claim(2, turns)).toEqual([]);
    expect(turns.after).toBe('later-40');
    // ...and the next carries on from there to the owner with a job due.
    expect(await ownersOf(await claim(2, turns))).toEqual(['now']);
  });
});

describe('the per-owner cap', () => {
  it('an owner at its cap of live attempts gets nothing; the others still do', async () => {
    await queue(['a', 'b'], 10);
    const limits = { perOwner: 3, providers: {} };
    expect((await ownersOf(await claim(10, newOwnerTurns(), limits))).sort()).toEqual([
      'a',
      'a',
      'a',
      'b',
      'b',
      'b',
    ]);
    expect(await claim(10, newOwnerTurns(), limits)).toEqual([]);
    await queue(['c'], 10);
    expect(await ownersOf(await claim(10, newOwnerTurns(), limits))).toEqual(['c', 'c', 'c']);
  });
});

describe('provider slots', () => {
  const limits = { perOwner: null, providers: { pay: 2 } };

  it('no more attempts of a capped provider start than it has slots; the rest stay queued without an attempt', async () => {
    await makeProviderSlots(t.onejob.pool, limits.providers);
    await queue(['a', 'b'], 5);
    expect(await claim(10, newOwnerTurns(), limits)).toHaveLength(2);
    expect(await claim(10, newOwnerTurns(), limits)).toHaveLength(0);
    const { rows } = await t.onejob.pool.query<{ queued: number; attempts: number }>(
      `SELECT count(*) FILTER (WHERE state = 'queued')::int AS queued,
              (SELECT count(*)::int FROM onejob.attempts) AS attempts FROM onejob.jobs`,
    );
    expect(rows[0]).toEqual({ queued: 8, attempts: 2 });
  });

  it('a slot is free again once its attempt ended', async () => {
    await makeProviderSlots(t.onejob.pool, limits.providers);
    await queue(['a'], 5);
    const [first] = await claim(10, newOwnerTurns(), limits);
    await t.onejob.pool.query(
      "UPDATE onejob.attempts SET state = 'succeeded', finished_at = now() WHERE id = $1",
      [first!.attempt.id],
    );
    expect(await claim(10, newOwnerTurns(), limits)).toHaveLength(1);
  });

  it('a slot whose holder lost its lease is taken back', async () => {
    await makeProviderSlots(t.onejob.pool, limits.providers);
    await queue(['a'], 5);
    const claimed = await claim(10, newOwnerTurns(), limits);
    expect(claimed).toHaveLength(2);
    await t.onejob.pool.query(
      "UPDATE onejob.attempts SET lease_expires_at = now() - interval '1 second' WHERE id = $1",
      [claimed[0]!.attempt.id],
    );
    expect(await claim(10, newOwnerTurns(), limits)).toHaveLength(1);
  });

  it('two claims in flight at once never take the same slot', async () => {
    await makeProviderSlots(t.onejob.pool, limits.providers);
    await queue(['a', 'b'], 5);
    const one = new pg.Client({ connectionString: t.db.url });
    const two = new pg.Client({ connectionString: t.db.url });
    await one.connect();
    await two.connect();
    try {
      // The first claim holds its slot rows, uncommitted, while the second runs.
      await one.query('BEGIN');
      const first = await claim(1, newOwnerTurns(), limits, one);
      expect(first).toHaveLength(1);
      const second = await claim(10, newOwnerTurns(), limits, two);
      expect(second).toHaveLength(1);
      await one.query('COMMIT');
      expect(await claim(10, newOwnerTurns(), limits)).toHaveLength(0);
      const { rows } = await t.onejob.pool.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM onejob.attempts WHERE state = 'running'",
      );
      expect(rows[0]!.n).toBe(2);
    } finally {
      await one.end();
      await two.end();
    }
  });
});

describe('provider pauses', () => {
  it('no attempt of a paused provider starts until the pause ends', async () => {
    await queue(['a'], 3);
    await t.onejob.pool.query(
      "INSERT INTO onejob.provider_pauses (provider, until) VALUES ('pay', now() + interval '1 hour')",
    );
    expect(await claim(10)).toEqual([]);
    await t.onejob.pool.query("UPDATE onejob.provider_pauses SET until = now() - interval '1 second'");
    expect(await claim(10)).toHaveLength(3);
  });
});

describe('attempts started through the API', () => {
  /** A job with an attempt started through the API (the fallback button), waiting for a worker. */
  async function startedThroughApi(key: string): Promise<string> {
    const { rows } = await t.onejob.pool.query<{ id: string }>(
      `WITH j AS (
         INSERT INTO onejob.jobs (id, owner_id, idempotency_key, fingerprint, operation, input, state, attempt_count)
         VALUES (gen_random_uuid(), 'a', $1, 'f', 'charge', '{}', 'running', 1) RETURNING id)
       INSERT INTO onejob.attempts (id, job_id, owner_id, n, provider, exclusive, origin, state, job_version)
       SELECT gen_random_uuid(), j.id, 'a', 1, 'pay', true, 'manual', 'starting', 1 FROM j RETURNING id`,
      [key],
    );
    return rows[0]!.id;
  }
  const take = (caps: Record<string, number> = {}) =>
    claimUnownedAttempt(t.onejob.pool, { id: 'w-test', leaseMs: 60_000, operations: ['charge'], caps });

  it('wait while their provider is paused', async () => {
    const id = await startedThroughApi('manual-paused');
    await t.onejob.pool.query(
      "INSERT INTO onejob.provider_pauses (provider, until) VALUES ('pay', now() + interval '1 hour')",
    );
    expect(await take()).toBeUndefined();
    await t.onejob.pool.query('DELETE FROM onejob.provider_pauses');
    expect((await take())?.attempt.id).toBe(id);
  });

  it('take a slot of a capped provider, and wait while it has none', async () => {
    await makeProviderSlots(t.onejob.pool, { pay: 1 });
    const first = await startedThroughApi('manual-1');
    await startedThroughApi('manual-2');
    expect((await take({ pay: 1 }))?.attempt.id).toBe(first);
    const { rows } = await t.onejob.pool.query<{ holder: string }>(
      "SELECT holder FROM onejob.provider_slots WHERE provider = 'pay'",
    );
    expect(rows).toEqual([{ holder: first }]);
    expect(await take({ pay: 1 })).toBeUndefined();
  });
});
