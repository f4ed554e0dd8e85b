// worker.maxSlotsPerOwner keeps slots free for other owners: while owner A's calls hang
// (held by a gate at the provider) on its share of the slots, owner B's job still runs
// and settles; A's other jobs wait queued until A's calls end.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakePaymentServer, Gate, startFakePaymentServer } from '../helpers/fakePaymentServer.js';
import { startTestApp, type TestApp } from '../helpers/startTestApp.js';
import { configWith } from './attemptTestKit.js';

const gate = new Gate();
let fake: FakePaymentServer;
let t: TestApp;

const ownerOf = (body: unknown) => String((body as { input?: { owner?: string } }).input?.owner);

beforeAll(async () => {
  fake = await startFakePaymentServer({
    script: (req) => ({ status: 200, body: { ok: true }, ...(ownerOf(req.body) === 'a' ? { gate } : {}) }),
  });
  t = await startTestApp({
    config: configWith(
      { pay: { kind: 'http', url: fake.chargeUrl } },
      { charge: { kind: 'http', providers: ['pay'], effect: 'exclusive', attemptTimeoutMs: 60_000 } },
      { leaseMs: 30_000, pollMs: 20, concurrency: 4, maxSlotsPerOwner: 2 },
    ),
  });
  t.onejob.attempts.startWorker();
});
afterAll(async () => {
  gate.open();
  await t?.close();
  await fake?.close();
});

const create = (owner: string, key: string) =>
  t.onejob.jobs.create({
    ownerId: `owner-${owner}`,
    idempotencyKey: key,
    operation: 'charge',
    input: { owner },
  });

describe('a share of the running slots per owner', () => {
  it("an owner whose calls hang holds no more than maxSlotsPerOwner slots: another owner's job runs meanwhile", async () => {
    const a = await Promise.all([1, 2, 3, 4].map((i) => create('a', `a-${i}`)));
    await fake.waitForRequests(2, (r) => ownerOf(r.body) === 'a');
    const b = await create('b', 'b-1');
    const settled = await t.onejob.jobs.wait('owner-b', b.job.id, 30_000);
    expect(settled.state).toBe('succeeded');
    // A's calls still hang: only its share of them was started.
    expect(gate.isOpen).toBe(false);
    expect(fake.calls().filter((r) => ownerOf(r.body) === 'a')).toHaveLength(2);
    gate.open();
    for (const { job } of a)
      expect((await t.onejob.jobs.wait('owner-a', job.id, 30_000)).state).toBe('succeeded');
  });
});
