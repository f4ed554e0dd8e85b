// Traces exported over OTLP/HTTP (JSON) to a receiver on loopback: the span tree of a
// hedged job, from the client's traceparent down to the provider calls, and the
// traceparent the provider received; a webhook's acceptance and the event the relay
// publishes for its job, in the webhook sender's trace.
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configureTracing, stopTracing } from '../../src/observability/tracing/configureTracing.js';
import { tracing } from '../../src/observability/tracing/tracing.js';
import { configWith, jobInState, markVerified, until } from '../attempts/attemptTestKit.js';
import {
  type FakeOtlpReceiver,
  type ReceivedSpan,
  startFakeOtlpReceiver,
} from '../helpers/fakeOtlpReceiver.js';
import { type FakePaymentServer, Gate, startFakePaymentServer } from '../helpers/fakePaymentServer.js';
import { startTestApp, type TestApp } from '../helpers/startTestApp.js';

const CLIENT_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CLIENT_SPAN = '00f067aa0ba902b7';
const SPAN_KIND = { server: 2, client: 3, producer: 4 };

let receiver: FakeOtlpReceiver;
let slow: FakePaymentServer;
let fast: FakePaymentServer;
let t: TestApp;
const never = new Gate();
const HOOK_SECRET = 'a-webhook-secret-of-at-least-24-bytes';
process.env.ONEJOB_TEST_OTLP_HOOK_SECRET = HOOK_SECRET;

beforeAll(async () => {
  receiver = await startFakeOtlpReceiver();
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.url;
  process.env.OTEL_EXPORTER_OTLP_PROTOCOL = 'http/json';
  process.env.OTEL_SERVICE_NAME = 'onejob-under-test';
  process.env.OTEL_BSP_SCHEDULE_DELAY = '50';
  await configureTracing();
  // The primary holds its answer until the hedge has won and the worker aborted it.
  slow = await startFakePaymentServer({
    script: () => ({ status: 200, body: { quote: 'slow' }, gate: never }),
  });
  fast = await startFakePaymentServer({ script: () => ({ status: 200, body: { quote: 'fast' } }) });
  const config = configWith(
    { slow: { kind: 'http', url: slow.chargeUrl }, fast: { kind: 'http', url: fast.chargeUrl } },
    {
      hook: { kind: 'http', providers: ['fast'] },
      quote: {
        kind: 'http',
        effect: 'pure',
        providers: ['slow', 'fast'],
        hedgeAfterMs: 100,
        attemptTimeoutMs: 20_000,
        maxAttempts: 3,
      },
    },
    { leaseMs: 5_000, pollMs: 20, graceMs: 1_000 },
  );
  config.inbox = {
    sources: {
      gh: {
        scheme: 'github',
        secretEnv: 'ONEJOB_TEST_OTLP_HOOK_SECRET',
        operation: 'hook',
        ownerId: 'octo',
        eventId: 'header:x-github-delivery',
        unsignedEventId: true,
      },
    },
  };
  t = await startTestApp({ config });
  await markVerified(t, 'fast', 'quote');
  await t.onejob.start({ roles: ['worker', 'relay'] });
});

afterAll(async () => {
  never.open();
  await t?.close();
  await stopTracing();
  for (const key of [
    'ONEJOB_TEST_OTLP_HOOK_SECRET',
    'OTEL_EXPORTER_OTLP_ENDPOINT',
    'OTEL_EXPORTER_OTLP_PROTOCOL',
    'OTEL_SERVICE_NAME',
    'OTEL_BSP_SCHEDULE_DELAY',
  ])
    delete process.env[key];
  await slow?.close();
  await fast?.close();
  await receiver?.close();
});

const one = (spans: ReceivedSpan[], what: string, match: (s: ReceivedSpan) => boolean): ReceivedSpan => {
  const found = spans.filter(match);
  if (found.length !== 1) throw new Error(`expected one ${what}, found ${found.length}`);
  return found[0] as ReceivedSpan;
};

describe('OpenTelemetry traces over OTLP/HTTP', () => {
  it("a hedged job's spans form one tree under the client's traceparent, the lost race marked", async () => {
    expect(tracing().enabled).toBe(true);
    const r = await t.request('/v1/jobs', {
      method: 'POST',
      headers: { 'idempotency-key': 'traced-1', traceparent: `00-${CLIENT_TRACE}-${CLIENT_SPAN}-01` },
      json: { operation: 'quote', input: { amount: 5 } },
    });
    expect(r.status).toBe(202);
    const { id } = (await r.json()) as { id: string };
    await jobInState(t, id, 'succeeded');
    const ofTrace = () => receiver.spans.filter((s) => s.traceId === CLIENT_TRACE);
    const spans = await until(
      'the job spans to arrive',
      async () => {
        await tracing().flush();
        const got = ofTrace();
        const attempts = got.filter((s) => s.name === 'onejob.attempt');
        const calls = got.filter((s) => s.name.startsWith('onejob.provider.call'));
        return attempts.length === 2 && calls.length === 2 && got.some((s) => s.name === 'POST /v1/jobs')
          ? got
          : undefined;
      },
      20_000,
    );

    const server = one(spans, 'server span', (s) => s.name === 'POST /v1/jobs');
    expect(server).toMatchObject({ kind: SPAN_KIND.server, parentSpanId: CLIENT_SPAN });
    expect(server.attributes['http.response.status_code']).toBe(202);
    expect(server.serviceName).toBe('onejob-under-test');

    const create = one(spans, 'job creation span', (s) => s.name === 'onejob.job.create');
    expect(create.parentSpanId).toBe(server.spanId);
    expect(create.attributes).toMatchObject({ 'onejob.job.id': id, 'onejob.operation': 'quote' });

    const attempts = spans.filter((s) => s.name === 'onejob.attempt');
    for (const a of attempts) expect(a.parentSpanId).toBe(create.spanId);
    const winner = one(
      attempts,
      'winning attempt',
      (s) => s.attributes['onejob.attempt.outcome'] === 'succeeded',
    );
    const loser = one(
      attempts,
      'losing attempt',
      (s) => s.attributes['onejob.attempt.outcome'] === 'lost_race',
    );
    expect(winner.attributes['onejob.provider']).toBe('fast');
    expect(loser.attributes['onejob.provider']).toBe('slow');
    expect(loser.events).toEqual(['lost_race']);

    for (const [attempt, fake] of [
      [winner, fast],
      [loser, slow],
    ] as const) {
      const call = one(
        spans,
        'provider call',
        (s) => s.kind === SPAN_KIND.client && s.parentSpanId === attempt.spanId,
      );
      // The provider received the traceparent of its client span, in the client's trace.
      const sent = fake.calls().map((c) => c.headers.traceparent);
      expect(sent).toContain(`00-${CLIENT_TRACE}-${call.spanId}-01`);
    }
  });

  it("a webhook's acceptance and its job's published event join the trace the sender sent", async () => {
    const trace = '5e0c63257de34c92bf9efcd03927272e';
    const body = JSON.stringify({ ref: 'refs/heads/main', after: 'abc' });
    const r = await fetch(`${t.url}/v1/inbox/gh`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-github-event': 'push',
        'x-github-delivery': 'delivery-1',
        'x-hub-signature-256': `sha256=${createHmac('sha256', HOOK_SECRET).update(body).digest('hex')}`,
        traceparent: `00-${trace}-e457b5a2e4d86bd1-01`,
      },
      body,
    });
    expect(r.status).toBe(202);
    const { jobId } = (await r.json()) as { jobId: string };
    const spans = await until(
      'the inbox and outbox spans to arrive',
      async () => {
        await tracing().flush();
        const got = receiver.spans.filter((s) => s.traceId === trace);
        return got.some((s) => s.name === 'onejob.outbox.publish onejob.job.created') &&
          got.some((s) => s.name === 'POST /v1/inbox/:source')
          ? got
          : undefined;
      },
      20_000,
    );
    const server = one(spans, 'server span', (s) => s.name === 'POST /v1/inbox/:source');
    expect(server.parentSpanId).toBe('e457b5a2e4d86bd1');
    const accept = one(spans, 'inbox span', (s) => s.name === 'onejob.inbox.accept');
    expect(accept.parentSpanId).toBe(server.spanId);
    expect(accept.attributes).toMatchObject({
      'onejob.inbox.source': 'gh',
      'onejob.inbox.event_id': 'delivery-1',
      'onejob.job.id': jobId,
    });
    const create = one(spans, 'job creation span', (s) => s.name === 'onejob.job.create');
    expect(create.parentSpanId).toBe(accept.spanId);
    const publish = one(spans, 'publish span', (s) => s.name === 'onejob.outbox.publish onejob.job.created');
    expect(publish).toMatchObject({ kind: SPAN_KIND.producer, parentSpanId: create.spanId });
    expect(publish.attributes['onejob.event.subject']).toBe(jobId);
  });
});
