import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isOnejobError } from '../../src/errors/OnejobError.js';
import { defineOperation } from '../../src/operations/defineOperation.js';
import { startLibrary } from './libraryKit.js';

const ship = defineOperation('ship', {
  inputSchema: { type: 'object', required: ['orderId'], properties: { orderId: { type: 'string' } } },
  attemptTimeoutMs: 1_000,
  run: (ctx) => ({ shipped: ctx.input.orderId }),
});

let lib: Awaited<ReturnType<typeof startLibrary<[typeof ship]>>>;

beforeAll(async () => {
  lib = await startLibrary([ship]);
  await lib.onejob.pool.query('CREATE TABLE orders (id text PRIMARY KEY, owner text NOT NULL)');
});
afterAll(async () => {
  await lib?.close();
});

async function countRows(orderId: string, jobId: string) {
  const { rows } = await lib.onejob.pool.query<{
    orders: number;
    jobs: number;
    outbox: number;
    audit: number;
  }>(
    `SELECT (SELECT count(*)::int FROM orders WHERE id = $1) AS orders,
            (SELECT count(*)::int FROM onejob.jobs WHERE id = $2) AS jobs,
            (SELECT count(*)::int FROM onejob.outbox WHERE subject IN ($1, $2::text)) AS outbox,
            (SELECT count(*)::int FROM onejob.job_events WHERE job_id = $2) AS audit`,
    [orderId, jobId],
  );
  return rows[0];
}

/** One business write, its job and its own event, in the caller's transaction. */
async function placeOrder(orderId: string, finish: 'COMMIT' | 'ROLLBACK') {
  const client = await lib.onejob.pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('INSERT INTO orders (id, owner) VALUES ($1, $2)', [orderId, 'shop']);
    const { job } = await lib.onejob.jobs.create(
      { ownerId: 'shop', idempotencyKey: `ship-${orderId}`, operation: 'ship', input: { orderId } },
      { tx: client },
    );
    const { event } = await lib.onejob.outbox.publish(
      { type: 'shop.order.placed', subject: orderId, data: { orderId, jobId: job.id } },
      { tx: client },
    );
    // Inside the transaction the job is there, with its created event.
    expect((await lib.onejob.jobs.get('shop', job.id, { tx: client })).state).toBe('queued');
    await client.query(finish);
    return { jobId: job.id, eventId: event.id };
  } finally {
    client.release();
  }
}

describe('caller transactions', () => {
  it('a caller transaction that rolls back leaves no job and no event, and frees the key', async () => {
    const { jobId } = await placeOrder('order-rolled-back', 'ROLLBACK');
    expect(await countRows('order-rolled-back', jobId)).toEqual({ orders: 0, jobs: 0, outbox: 0, audit: 0 });
    const missing = await lib.onejob.jobs.get('shop', jobId).catch((e: unknown) => e);
    expect(isOnejobError(missing, 'job_not_found')).toBe(true);
    // The key was never taken: the same intent now creates a job (a new one, since nothing was kept).
    const { job, replayed } = await lib.onejob.jobs.create({
      ownerId: 'shop',
      idempotencyKey: 'ship-order-rolled-back',
      operation: 'ship',
      input: { orderId: 'order-rolled-back' },
    });
    expect(replayed).toBe(false);
    expect(job.id).not.toBe(jobId);
  });

  it('a caller transaction that commits keeps the order, the job, its created event and the caller event together', async () => {
    const { jobId, eventId } = await placeOrder('order-committed', 'COMMIT');
    expect(await countRows('order-committed', jobId)).toEqual({ orders: 1, jobs: 1, outbox: 2, audit: 1 });
    const { rows } = await lib.onejob.pool.query<{ type: string }>(
      'SELECT type FROM onejob.outbox WHERE id = $1',
      [eventId],
    );
    expect(rows[0]?.type).toBe('shop.order.placed');
  });

  it('a failure inside the transaction after the job was created rolls the job back too', async () => {
    const client = await lib.onejob.pool.connect();
    let jobId = '';
    try {
      await client.query('BEGIN');
      ({
        job: { id: jobId },
      } = await lib.onejob.jobs.create(
        {
          ownerId: 'shop',
          idempotencyKey: 'ship-dup',
          operation: 'ship',
          input: { orderId: 'order-committed' },
        },
        { tx: client },
      ));
      // The business write fails (duplicate order id): the whole transaction is lost.
      await expect(
        client.query('INSERT INTO orders (id, owner) VALUES ($1, $2)', ['order-committed', 'shop']),
      ).rejects.toMatchObject({
        code: '23505',
      });
      await client.query('ROLLBACK');
    } finally {
      client.release();
    }
    expect(await countRows('none', jobId)).toMatchObject({ jobs: 0, audit: 0 });
  });
});
