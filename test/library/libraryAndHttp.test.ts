import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isOnejobError } from '../../src/errors/OnejobError.js';
import { ApiKeys } from '../../src/http/apiKeys.js';
import { buildServer } from '../../src/http/buildServer.js';
import { defineOperation } from '../../src/operations/defineOperation.js';
import { startLibrary } from './libraryKit.js';

const charge = defineOperation('charge', {
  inputSchema: {
    type: 'object',
    required: ['amount'],
    properties: { amount: { type: 'integer', minimum: 1 } },
  },
  attemptTimeoutMs: 1_000,
  run: (ctx) => ({ charged: ctx.input.amount }),
});

// Two engines on one database, as two processes would be: one serves HTTP, one is embedded.
let served: Awaited<ReturnType<typeof startLibrary<[typeof charge]>>>;
let embedded: Awaited<ReturnType<typeof startLibrary<[typeof charge]>>>;
let app: FastifyInstance;

beforeAll(async () => {
  served = await startLibrary([charge]);
  embedded = await startLibrary([charge], { db: served.db });
  app = await buildServer(served.onejob, { apiKeys: new ApiKeys([['token-shop', 'shop']]) });
});
afterAll(async () => {
  await app?.close();
  await embedded?.close();
  await served?.close();
});

const post = (key: string, input: Record<string, unknown>) =>
  app.inject({
    method: 'POST',
    url: '/v1/jobs',
    headers: {
      authorization: 'Bearer token-shop',
      'idempotency-key': key,
      'content-type': 'application/json',
    },
    payload: { operation: 'charge', input },
  });

describe('library and HTTP on one database', () => {
  it('a job created by the library is the job HTTP returns for the same (owner, key), and the other way round', async () => {
    const { job } = await embedded.onejob.jobs.create({
      ownerId: 'shop',
      idempotencyKey: 'lib-first',
      operation: 'charge',
      input: { amount: 5 },
    });
    const viaHttp = await post('lib-first', { amount: 5 });
    expect(viaHttp.statusCode).toBe(202);
    expect(viaHttp.headers['idempotent-replayed']).toBe('true');
    expect(viaHttp.json().id).toBe(job.id);

    const first = await post('http-first', { amount: 6 });
    expect(first.statusCode).toBe(202);
    const again = await embedded.onejob.jobs.create({
      ownerId: 'shop',
      idempotencyKey: 'http-first',
      operation: 'charge',
      input: { amount: 6 },
    });
    expect(again.replayed).toBe(true);
    expect(again.job.id).toBe(first.json().id);
  });

  it('concurrent library and HTTP creates with one key all get one job id', async () => {
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        i % 2 === 0
          ? embedded.onejob.jobs
              .create({
                ownerId: 'shop',
                idempotencyKey: 'race-1',
                operation: 'charge',
                input: { amount: 7 },
              })
              .then((r) => r.job.id)
          : post('race-1', { amount: 7 }).then((r) => r.json().id as string),
      ),
    );
    expect(new Set(results).size).toBe(1);
    const { rows } = await served.onejob.pool.query(
      "SELECT count(*)::int AS n FROM onejob.jobs WHERE idempotency_key = 'race-1'",
    );
    expect(rows[0].n).toBe(1);
  });

  it('the same key with a different input is the same refusal on both paths, with the same stable code', async () => {
    await embedded.onejob.jobs.create({
      ownerId: 'shop',
      idempotencyKey: 'scope-1',
      operation: 'charge',
      input: { amount: 8 },
    });
    const viaHttp = await post('scope-1', { amount: 9 });
    expect(viaHttp.statusCode).toBe(409);
    expect(viaHttp.json().code).toBe('idempotency_key_reused');
    const viaLibrary = await embedded.onejob.jobs
      .create({ ownerId: 'shop', idempotencyKey: 'scope-1', operation: 'charge', input: { amount: 9 } })
      .catch((e: unknown) => e);
    expect(isOnejobError(viaLibrary, 'idempotency_key_reused')).toBe(true);
    expect(viaLibrary).toMatchObject({ status: 409 });
  });

  it("another owner's key is another job on both paths", async () => {
    const mine = await post('owner-scope', { amount: 3 });
    const theirs = await embedded.onejob.jobs.create({
      ownerId: 'other',
      idempotencyKey: 'owner-scope',
      operation: 'charge',
      input: { amount: 3 },
    });
    expect(theirs.replayed).toBe(false);
    expect(theirs.job.id).not.toBe(mine.json().id);
  });
});
