import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Relay, startRelay } from '../../src/outbox/startRelay.js';
import { closedPort } from '../helpers/ports.js';
import { postJob, startTestApp, type TestApp } from '../helpers/startTestApp.js';
import { until } from '../helpers/until.js';
import { configWith, uniqueName } from './outboxTestKit.js';

// lastError is returned to the job's owner by GET /v1/jobs/{id}/deliveries. Publisher
// URLs carry credentials (userinfo, tokens in the query): real publishers that fail must
// leave only scheme, host and port there.

const SECRET_ENV = 'OUTBOX_REDACTION_WEBHOOK_SECRET';
const SECRETS = ['natsuser', 'hunter2', 'guest:', 'wrongpass', 's3cr3t', 'token=', '/hook'];

let t: TestApp;
let relay: Relay;
let natsPort: number;
let hookPort: number;

beforeAll(async () => {
  [natsPort, hookPort] = [await closedPort(), await closedPort()];
  process.env[SECRET_ENV] = `whsec_${randomBytes(32).toString('base64')}`;
  const config = configWith({
    publishers: [
      {
        kind: 'nats',
        url: `nats://natsuser:hunter2@127.0.0.1:${natsPort}`,
        stream: uniqueName('ONEJOB_R_'),
        timeoutMs: 500,
      },
      // The real broker, refusing the password.
      {
        kind: 'rabbitmq',
        url: 'amqp://guest:wrongpass@127.0.0.1:5672',
        exchange: uniqueName('onejob-r-'),
        timeoutMs: 2_000,
      },
      {
        kind: 'webhook',
        url: `http://127.0.0.1:${hookPort}/hook?token=s3cr3t`,
        secretEnv: SECRET_ENV,
        retryBaseMs: 20,
        retryMaxMs: 100,
      },
    ],
    pollMs: 30,
  });
  t = await startTestApp({ config });
  relay = await startRelay(t.onejob);
});
afterAll(async () => {
  await relay?.stop();
  await t?.close();
});

interface Delivery {
  publisher: string;
  lastError: string | null;
}

describe('publisher errors returned to tenants', () => {
  it('GET /v1/jobs/{id}/deliveries shows failing NATS, RabbitMQ and webhook publishers by scheme, host and port only', async () => {
    const job = (await (
      await postJob(t, 'redacted-errors', { operation: 'summarize', input: { text: 'hello' } })
    ).json()) as { id: string };

    const deliveries = await until('all three publishers to record an error', async () => {
      const res = await t.request(`/v1/jobs/${job.id}/deliveries`);
      expect(res.status).toBe(200);
      const body = (await res.json()) as
        | { items?: { deliveries: Delivery[] }[] }
        | { deliveries: Delivery[] }[];
      const events = Array.isArray(body) ? body : (body.items ?? []);
      const all = events.flatMap((e) => e.deliveries);
      return all.length === 3 && all.every((d) => d.lastError) ? all : undefined;
    });

    const byPublisher = Object.fromEntries(deliveries.map((d) => [d.publisher, d.lastError as string]));
    expect(byPublisher.nats).toContain(`nats://127.0.0.1:${natsPort}`);
    expect(byPublisher.webhook).toContain(`http://127.0.0.1:${hookPort}`);
    for (const [publisher, lastError] of Object.entries(byPublisher)) {
      for (const secret of SECRETS) {
        expect(lastError, `${publisher} lastError leaks "${secret}": ${lastError}`).not.toContain(secret);
      }
    }
  }, 60_000);
});
