import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OnejobConfig } from '../../src/config/types.js';
import { defineOperation } from '../../src/operations/defineOperation.js';
import { FAST_WORKER, startLibrary, until } from './libraryKit.js';

// A `onejob serve`-like engine (config operations only) and a service embedding onejob with
// a code operation, on one database, each running a worker.
const ping = defineOperation('ping', {
  inputSchema: { type: 'object', properties: { n: { type: 'integer' } } },
  attemptTimeoutMs: 1_000,
  run: (ctx) => ({ pong: ctx.input.n ?? 0 }),
});

const serveConfig: OnejobConfig = {
  providers: { sim: { kind: 'simulated', latencyMs: 1 } },
  operations: { echo: { kind: 'http', providers: ['sim'], attemptTimeoutMs: 1_000 } },
  worker: FAST_WORKER,
  outbox: { publishers: [{ kind: 'log' }] },
};

let serve: Awaited<ReturnType<typeof startLibrary<[]>>>;
let service: Awaited<ReturnType<typeof startLibrary<[typeof ping]>>>;

beforeAll(async () => {
  serve = await startLibrary([], { config: serveConfig });
  service = await startLibrary([ping], { db: serve.db });
  await serve.onejob.start({ roles: ['worker'] });
});
afterAll(async () => {
  await service?.close();
  await serve?.close();
});

const row = async (id: string) =>
  (
    await serve.onejob.pool.query<{ state: string; run_after: Date; attempt_count: number }>(
      'SELECT state, run_after, attempt_count FROM onejob.jobs WHERE id = $1',
      [id],
    )
  ).rows[0];

describe('a worker that does not run an operation', () => {
  it('leaves its queued jobs and its manually started attempts to the processes that do', async () => {
    const { job: code } = await service.onejob.jobs.create({
      ownerId: 'o',
      idempotencyKey: 'ping-1',
      operation: 'ping',
      input: { n: 1 },
    });
    const before = await row(code.id);
    // The serve worker is busy and polling: its own job goes through...
    const { job: echo } = await serve.onejob.jobs.create({
      ownerId: 'o',
      idempotencyKey: 'echo-1',
      operation: 'echo',
      input: {},
    });
    expect((await serve.onejob.jobs.wait('o', echo.id, 20_000)).state).toBe('succeeded');
    // ...and it passed over the code job without touching it (no attempt, no deferral).
    expect(await row(code.id)).toEqual(before);

    // The fallback button, pressed on the embedding service: the serve worker does not take it either.
    const started = await service.onejob.attempts.start('o', code.id);
    const { job: echo2 } = await serve.onejob.jobs.create({
      ownerId: 'o',
      idempotencyKey: 'echo-2',
      operation: 'echo',
      input: {},
    });
    expect((await serve.onejob.jobs.wait('o', echo2.id, 20_000)).state).toBe('succeeded');
    const { rows } = await serve.onejob.pool.query(
      'SELECT state, lease_owner FROM onejob.attempts WHERE id = $1',
      [started.id],
    );
    expect(rows[0]).toEqual({ state: 'starting', lease_owner: null });

    // The embedding service's worker runs it.
    await service.onejob.start({ roles: ['worker'] });
    const done = await until('the code job to succeed', async () => {
      const j = await service.onejob.jobs.get('o', code.id, { operation: 'ping' });
      return j.state === 'succeeded' ? j : undefined;
    });
    expect(done.result).toEqual({ pong: 1 });
    expect(done.attempts.map((a) => [a.n, a.state])).toEqual([[1, 'succeeded']]);
  });
});
