import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { Command } from 'commander';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { outboxCommand } from '../../src/cli/commands/outboxCommand.js';
import type { Onejob } from '../../src/createOnejob.js';
import { publishEvent } from '../../src/outbox/publishEvent.js';
import { type Relay, startRelay } from '../../src/outbox/startRelay.js';
import { ADMIN_TOKEN, startTestApp, type TestApp } from '../helpers/startTestApp.js';
import { until } from '../helpers/until.js';
import { configWith, deliveryCounts } from './outboxTestKit.js';

const SECRET_ENV = 'OUTBOX_TEST_WEBHOOK_SECRET';
const secret = `whsec_${randomBytes(32).toString('base64')}`;

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  status: number;
}

// A real receiver on loopback. Each subject has a script of answers (the last repeats).
const received: Received[] = [];
const scripts = new Map<string, number[]>();
let receiver: Server;
let t: TestApp;
let onejob: Onejob;
let relay: Relay;

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString('utf8');
    });
    req.on('end', () => {
      const subject = (JSON.parse(body) as { subject: string }).subject;
      const script = scripts.get(subject) ?? [200];
      const status = script.length > 1 ? (script.shift() as number) : (script[0] as number);
      received.push({ headers: req.headers, body, status });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const port = (receiver.address() as { port: number }).port;
  process.env[SECRET_ENV] = secret;
  const config = configWith({
    publishers: [
      {
        kind: 'webhook',
        url: `http://127.0.0.1:${port}/events`,
        secretEnv: SECRET_ENV,
        retryBaseMs: 20,
        retryMaxMs: 100,
        maxDeliveries: 3,
      },
    ],
    pollMs: 30,
  });
  t = await startTestApp({ config });
  onejob = t.onejob;
  relay = await startRelay(onejob);
});
afterAll(async () => {
  await relay?.stop();
  await t?.close();
  await new Promise((r) => receiver?.close(r));
});

const deliveriesOf = (eventId: string) => received.filter((r) => r.headers['webhook-id'] === eventId);

async function deliveryState(eventId: string) {
  const { rows } = await onejob.pool.query<{ state: string; attempts: number }>(
    `SELECT state, attempts FROM onejob.outbox_deliveries WHERE event_id = $1 AND publisher = 'webhook'`,
    [eventId],
  );
  return rows[0];
}

/** Runs `onejob <args>` in this process against the test server's HTTP API; returns its stdout. */
async function runCli(args: string[]): Promise<string> {
  const program = new Command('onejob').exitOverride();
  outboxCommand(program);
  let out = '';
  const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    out += String(chunk);
    return true;
  });
  const previous = { url: process.env.ONEJOB_URL, admin: process.env.ONEJOB_ADMIN_TOKEN };
  process.env.ONEJOB_URL = t.url;
  process.env.ONEJOB_ADMIN_TOKEN = ADMIN_TOKEN;
  try {
    await program.parseAsync(['node', 'onejob', ...args]);
  } finally {
    write.mockRestore();
    for (const [name, value] of [
      ['ONEJOB_URL', previous.url],
      ['ONEJOB_ADMIN_TOKEN', previous.admin],
    ] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
  return out;
}

describe('webhook publisher', () => {
  it('signs per Standard Webhooks: the receiver verifies with its secret, and not with another', async () => {
    const { event } = await publishEvent(onejob.pool, {
      type: 'shop.order.paid',
      subject: 'order-1',
      data: { amount: 5 },
    });
    await until(
      'the webhook to be delivered',
      async () => (await deliveryState(event.id))?.state === 'published',
    );
    const [delivery] = deliveriesOf(event.id);
    expect(delivery).toBeDefined();
    const headers = delivery!.headers as Record<string, string>;
    expect(headers['content-type']).toBe('application/json');
    expect(new Webhook(secret).verify(delivery!.body, headers)).toMatchObject({
      id: event.id,
      type: 'shop.order.paid',
      data: { amount: 5 },
    });
    expect(() =>
      new Webhook(`whsec_${randomBytes(32).toString('base64')}`).verify(delivery!.body, headers),
    ).toThrow();
    // The body is the stored JSON text, whatever its spacing; a changed amount must not verify.
    const tampered = delivery!.body.replace(/("amount":\s*)5/, '$16');
    expect(tampered).not.toBe(delivery!.body);
    expect(() => new Webhook(secret).verify(tampered, headers)).toThrow();
  });

  it('a receiver answering 500, 500, then 200 gets the event three times with the same webhook-id', async () => {
    scripts.set('order-retry', [500, 500, 200]);
    const { event } = await publishEvent(onejob.pool, {
      type: 'shop.order.paid',
      subject: 'order-retry',
      data: {},
    });
    await until(
      'the third try to succeed',
      async () => (await deliveryState(event.id))?.state === 'published',
    );
    const tries = deliveriesOf(event.id);
    expect(tries.map((r) => r.status)).toEqual([500, 500, 200]);
    expect(new Set(tries.map((r) => r.headers['webhook-id']))).toEqual(new Set([event.id]));
    for (const r of tries)
      expect(() => new Webhook(secret).verify(r.body, r.headers as Record<string, string>)).not.toThrow();
    expect(await deliveryState(event.id)).toEqual({ state: 'published', attempts: 2 });
  });

  it('an event refused maxDeliveries times becomes a dead letter, listed to the admin only, and replays with the same id', async () => {
    scripts.set('order-poison', [500]);
    const { event } = await publishEvent(onejob.pool, {
      type: 'shop.order.paid',
      subject: 'order-poison',
      data: {},
    });
    await until(
      'the event to become a dead letter',
      async () => (await deliveryState(event.id))?.state === 'dead',
    );
    expect(deliveriesOf(event.id)).toHaveLength(3);

    const asOwner = await t.request('/v1/outbox/dead-letters');
    expect(asOwner.status).toBe(403);
    expect(((await asOwner.json()) as { code: string }).code).toBe('admin_token_required');

    const listed = await t.request('/v1/outbox/dead-letters?publisher=webhook', { token: ADMIN_TOKEN });
    expect(listed.status).toBe(200);
    const page = (await listed.json()) as {
      items: { eventId: string; attempts: number; lastError: string }[];
    };
    expect(page.items).toEqual([
      expect.objectContaining({ eventId: event.id, attempts: 3, lastError: 'webhook endpoint answered 500' }),
    ]);

    const backlog = (await (await t.request('/v1/outbox/backlog', { token: ADMIN_TOKEN })).json()) as {
      publishers: { publisher: string; dead: number }[];
    };
    expect(backlog.publishers).toEqual([expect.objectContaining({ publisher: 'webhook', dead: 1 })]);

    const missing = await t.request('/v1/outbox/dead-letters/00000000-0000-4000-8000-000000000000/replay', {
      method: 'POST',
      token: ADMIN_TOKEN,
      json: {},
    });
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { code: string }).code).toBe('dead_letter_not_found');

    scripts.set('order-poison', [200]);
    const replay = await t.request(`/v1/outbox/dead-letters/${event.id}/replay`, {
      method: 'POST',
      token: ADMIN_TOKEN,
      json: {},
    });
    expect(replay.status).toBe(200);
    expect(await replay.json()).toEqual({ replayed: [{ eventId: event.id, publisher: 'webhook' }] });
    await until(
      'the replayed event to be delivered',
      async () => (await deliveryState(event.id))?.state === 'published',
    );
    const tries = deliveriesOf(event.id);
    expect(tries.map((r) => r.status)).toEqual([500, 500, 500, 200]);
    expect(new Set(tries.map((r) => r.headers['webhook-id'])).size).toBe(1);
    // Replaying again finds nothing dead.
    const again = await t.request(`/v1/outbox/dead-letters/${event.id}/replay`, {
      method: 'POST',
      token: ADMIN_TOKEN,
      json: {},
    });
    expect(again.status).toBe(404);
  });

  it('onejob outbox dead-letters lists a dead letter and onejob outbox replay sends it back', async () => {
    scripts.set('order-cli', [500]);
    const { event } = await publishEvent(onejob.pool, {
      type: 'shop.order.paid',
      subject: 'order-cli',
      data: {},
    });
    await until(
      'the event to become a dead letter',
      async () => (await deliveryState(event.id))?.state === 'dead',
    );
    const list = await runCli(['outbox', 'dead-letters', '--json']);
    expect(JSON.parse(list).items.map((d: { eventId: string }) => d.eventId)).toContain(event.id);

    scripts.set('order-cli', [200]);
    expect(await runCli(['outbox', 'replay', event.id])).toContain(`replaying ${event.id} to webhook`);
    await until(
      'the replayed event to be delivered',
      async () => (await deliveryState(event.id))?.state === 'published',
    );
    expect(await deliveryCounts(onejob.pool, 'webhook')).not.toHaveProperty('dead');
  });
});
