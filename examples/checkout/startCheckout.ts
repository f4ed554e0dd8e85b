// A small checkout service with onejob embedded: an order row and its charge job are
// written in one transaction, the `charge` operation runs in this process, and the shop
// learns the outcome from onejob's own events, applied exactly once per event.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { Webhook } from 'standardwebhooks';
import { type CloudEvent, createOnejob, migrate, type WorkerOptions } from '../../src/index.js';
import { chargeOperation } from './chargeOperation.js';

const SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS shop_orders (
  id text PRIMARY KEY,
  customer_id text NOT NULL,
  amount integer NOT NULL,
  currency text NOT NULL,
  status text NOT NULL DEFAULT 'awaiting_payment',
  charge_job_id uuid,
  charge_id text
);
CREATE TABLE IF NOT EXISTS shop_order_log (order_id text NOT NULL, what text NOT NULL, at timestamptz NOT NULL DEFAULT now())`;

const INSERT_ORDER_SQL = `
INSERT INTO shop_orders (id, customer_id, amount, currency) VALUES ($1, $2, $3, $4)
ON CONFLICT (id) DO NOTHING`;

const ORDER_OF_JOB_SQL = 'SELECT id, customer_id FROM shop_orders WHERE charge_job_id = $1';

export interface Order {
  orderId: string;
  customerId: string;
  amount: number;
  currency: 'EUR' | 'USD';
}

export interface CheckoutOptions {
  connectionString: string;
  paymentApiUrl: string;
  worker?: WorkerOptions;
  logger?: Logger;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startCheckout(options: CheckoutOptions) {
  await migrate(options.connectionString);
  // The relay signs each event it sends to our endpoint (Standard Webhooks).
  const secret = `whsec_${randomBytes(24).toString('base64')}`;
  const receiver = new Webhook(secret);
  const events = createServer((req, res) => {
    void handleDelivery(req).then(
      (status) => res.writeHead(status).end(),
      () => res.writeHead(500).end(),
    );
  });
  await new Promise<void>((resolve) => events.listen(0, '127.0.0.1', resolve));
  const eventsUrl = `http://127.0.0.1:${(events.address() as AddressInfo).port}/onejob-events`;

  const onejob = createOnejob({
    connectionString: options.connectionString,
    config: {
      providers: {},
      operations: {},
      outbox: {
        publishers: [{ kind: 'webhook', name: 'shop', url: eventsUrl, secretEnv: 'SHOP_EVENTS_SECRET' }],
      },
    },
    env: { SHOP_EVENTS_SECRET: secret },
    operations: [chargeOperation(options.paymentApiUrl)],
    logger: options.logger,
  });
  await onejob.pool.query(SCHEMA_SQL);

  /**
   * The checkout button. The order id comes from the checkout page, so a double click or a
   * retried request names the same intent: one order row, one job, one charge.
   */
  async function placeOrder(order: Order): Promise<{ jobId: string; replayed: boolean }> {
    const client = await onejob.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query(INSERT_ORDER_SQL, [order.orderId, order.customerId, order.amount, order.currency]);
      const { job, replayed } = await onejob.jobs.create(
        {
          ownerId: order.customerId,
          idempotencyKey: `order:${order.orderId}:charge`,
          operation: 'charge',
          input: { orderId: order.orderId, amount: order.amount, currency: order.currency },
        },
        { tx: client },
      );
      await client.query('UPDATE shop_orders SET charge_job_id = $2 WHERE id = $1', [order.orderId, job.id]);
      await client.query('COMMIT');
      // onejob does not see this commit: announce the job, so an idle worker claims it now
      // rather than at its next poll.
      if (!replayed) onejob.wakeups.jobsQueued();
      return { jobId: job.id, replayed };
    } catch (error) {
      await client.query('ROLLBACK');
      throw error;
    } finally {
      client.release();
    }
  }

  /** The consumer of onejob.job.succeeded / failed: marks the order, once per event id. */
  async function consume(event: CloudEvent): Promise<void> {
    if (event.type !== 'onejob.job.succeeded' && event.type !== 'onejob.job.failed') return;
    const client = await onejob.pool.connect();
    try {
      await client.query('BEGIN');
      await onejob.outbox.consumeOnce(client, 'shop-orders', event, async () => {
        const { rows } = await client.query<{ id: string; customer_id: string }>(ORDER_OF_JOB_SQL, [
          event.subject,
        ]);
        const order = rows[0];
        if (!order) return;
        if (event.type === 'onejob.job.failed') {
          await client.query(`UPDATE shop_orders SET status = 'payment_failed' WHERE id = $1`, [order.id]);
          await client.query(`INSERT INTO shop_order_log (order_id, what) VALUES ($1, 'payment_failed')`, [
            order.id,
          ]);
          return;
        }
        // The typed read: result is { chargeId, amount } | null.
        const job = await onejob.jobs.get(order.customer_id, event.subject, {
          tx: client,
          operation: 'charge',
        });
        await client.query(`UPDATE shop_orders SET status = 'paid', charge_id = $2 WHERE id = $1`, [
          order.id,
          job.result?.chargeId,
        ]);
        await client.query(`INSERT INTO shop_order_log (order_id, what) VALUES ($1, 'paid')`, [order.id]);
      });
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK');
      throw error;
    } finally {
      client.release();
    }
  }

  async function handleDelivery(req: IncomingMessage): Promise<number> {
    if (req.method !== 'POST' || req.url !== '/onejob-events') return 404;
    const body = await readBody(req);
    let event: CloudEvent;
    try {
      event = receiver.verify(body, req.headers as Record<string, string>) as CloudEvent;
    } catch {
      return 401;
    }
    await consume(event);
    // A redelivered event answers 204 too: a duplicate is a success that does nothing.
    return 204;
  }

  await onejob.start({ worker: options.worker });

  return {
    onejob,
    placeOrder,
    eventsUrl,
    /** Signs an event as the relay does (to replay a delivery by hand). */
    sign(event: CloudEvent, at = new Date()): Record<string, string> {
      const body = JSON.stringify(event);
      return {
        'content-type': 'application/json',
        'webhook-id': event.id,
        'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
        'webhook-signature': receiver.sign(event.id, at, body),
      };
    },
    async order(orderId: string) {
      const { rows } = await onejob.pool.query<{
        status: string;
        charge_id: string | null;
        charge_job_id: string | null;
      }>('SELECT status, charge_id, charge_job_id FROM shop_orders WHERE id = $1', [orderId]);
      return rows[0];
    },
    async log(orderId: string) {
      const { rows } = await onejob.pool.query<{ what: string }>(
        'SELECT what FROM shop_order_log WHERE order_id = $1 ORDER BY at',
        [orderId],
      );
      return rows.map((r) => r.what);
    },
    async stop() {
      await onejob.close();
      await new Promise<void>((resolve) => events.close(() => resolve()));
    },
  };
}

export type Checkout = Awaited<ReturnType<typeof startCheckout>>;
