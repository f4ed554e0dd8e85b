import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isOnejobError } from '../../src/index.js';
import { createLogger } from '../../src/observability/createLogger.js';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/testDatabase.js';
import { type PaymentApi, startPaymentApi } from './paymentApi.js';
import { type Checkout, startCheckout } from './startCheckout.js';

let db: TestDatabase;
let payments: PaymentApi;
let shop: Checkout;

beforeAll(async () => {
  db = await createTestDatabase();
  payments = await startPaymentApi({ declineAbove: 100_000 });
  shop = await startCheckout({
    connectionString: db.url,
    paymentApiUrl: payments.url,
    worker: { pollMs: 20, leaseMs: 1_000 },
    logger: createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'),
  });
});
afterAll(async () => {
  await shop?.stop();
  await payments?.close();
  await db?.drop();
});

/** Waits for the consumer to move the order on (events arrive through the relay). */
async function orderSettles(orderId: string) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const order = await shop.order(orderId);
    if (order && order.status !== 'awaiting_payment') return order;
    if (Date.now() > deadline) throw new Error(`order ${orderId} never settled`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('the checkout example', () => {
  it('a double click is one order, one job, one charge, and the order is marked paid once', async () => {
    const order = { orderId: 'o-1001', customerId: 'cus_ada', amount: 4_200, currency: 'EUR' as const };
    const [a, b] = await Promise.all([shop.placeOrder(order), shop.placeOrder(order)]);
    expect(a.jobId).toBe(b.jobId);
    expect([a.replayed, b.replayed].sort()).toEqual([false, true]);

    const paid = await orderSettles('o-1001');
    expect(paid.status).toBe('paid');
    const charges = payments.charges().filter((c) => c.idempotencyKey === a.jobId);
    expect(charges).toHaveLength(1);
    expect(paid.charge_id).toBe(charges[0]?.id);
    expect(await shop.log('o-1001')).toEqual(['paid']);
  });

  it('a redelivered onejob.job.succeeded event is answered and does nothing', async () => {
    const { jobId } = await shop.placeOrder({
      orderId: 'o-1002',
      customerId: 'cus_ada',
      amount: 990,
      currency: 'EUR',
    });
    await orderSettles('o-1002');
    const { rows } = await shop.onejob.pool.query(
      "SELECT event FROM onejob.outbox WHERE subject = $1 AND type = 'onejob.job.succeeded'",
      [jobId],
    );
    const event = rows[0].event;
    // The broker (here: the relay's webhook) delivers it again, as at-least-once delivery may.
    for (let i = 0; i < 2; i++) {
      const again = await fetch(shop.eventsUrl, {
        method: 'POST',
        headers: shop.sign(event),
        body: JSON.stringify(event),
      });
      expect(again.status).toBe(204);
    }
    expect(await shop.log('o-1002')).toEqual(['paid']);
    expect(payments.charges().filter((c) => c.idempotencyKey === jobId)).toHaveLength(1);
  });

  it('a declined card fails the job after its attempts, and the order says so, once', async () => {
    const { jobId } = await shop.placeOrder({
      orderId: 'o-1003',
      customerId: 'cus_bob',
      amount: 500_000,
      currency: 'USD',
    });
    const failed = await orderSettles('o-1003');
    expect(failed.status).toBe('payment_failed');
    const job = await shop.onejob.jobs.get('cus_bob', jobId);
    expect(job.state).toBe('failed');
    expect(job.attempts.map((a) => [a.state, (a.error as { code?: string }).code])).toEqual([
      ['failed', 'card_declined'],
      ['failed', 'card_declined'],
      ['failed', 'card_declined'],
    ]);
    expect(await shop.log('o-1003')).toEqual(['payment_failed']);
  });

  it('the same order id with another amount is refused and writes nothing', async () => {
    const refused = await shop
      .placeOrder({ orderId: 'o-1001', customerId: 'cus_ada', amount: 1, currency: 'EUR' })
      .catch((e: unknown) => e);
    expect(isOnejobError(refused, 'idempotency_key_reused')).toBe(true);
    expect((await shop.order('o-1001'))?.status).toBe('paid');
    const { rows } = await shop.onejob.pool.query(
      "SELECT count(*)::int AS n FROM onejob.jobs WHERE idempotency_key = 'order:o-1001:charge'",
    );
    expect(rows[0].n).toBe(1);
  });
});
