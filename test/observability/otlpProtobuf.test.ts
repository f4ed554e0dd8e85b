// The default OTLP protocol, http/protobuf: a job's spans arrive at a receiver on
// loopback as protobuf and parse, in the client's trace.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configureTracing, stopTracing } from '../../src/observability/tracing/configureTracing.js';
import { tracing } from '../../src/observability/tracing/tracing.js';
import { configWith, until } from '../attempts/attemptTestKit.js';
import { type FakeOtlpReceiver, startFakeOtlpReceiver } from '../helpers/fakeOtlpReceiver.js';
import { startTestApp, type TestApp } from '../helpers/startTestApp.js';

const CLIENT_TRACE = '0af7651916cd43dd8448eb211c80319c';

let receiver: FakeOtlpReceiver;
let t: TestApp;

beforeAll(async () => {
  receiver = await startFakeOtlpReceiver();
  // Only the traces endpoint is set, and no protocol: the default is http/protobuf.
  process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT = `${receiver.url}/v1/traces`;
  await configureTracing();
  t = await startTestApp({
    config: configWith(
      { sim: { kind: 'simulated', latencyMs: 0, script: [{ outcome: 'success', output: { ok: true } }] } },
      { noop: { kind: 'http', providers: ['sim'] } },
    ),
  });
});

afterAll(async () => {
  await t?.close();
  await stopTracing();
  delete process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  await receiver?.close();
});

describe('OTLP over http/protobuf', () => {
  it('spans arrive as protobuf and parse, in the trace the client sent', async () => {
    const r = await t.request('/v1/jobs', {
      method: 'POST',
      headers: { 'idempotency-key': 'proto-1', traceparent: `00-${CLIENT_TRACE}-b7ad6b7169203331-01` },
      json: { operation: 'noop', input: {} },
    });
    expect(r.status).toBe(202);
    const { id } = (await r.json()) as { id: string };
    const create = await until(
      'the job creation span',
      async () => {
        await tracing().flush();
        return receiver.spans.find((s) => s.name === 'onejob.job.create' && s.traceId === CLIENT_TRACE);
      },
      20_000,
    );
    expect(receiver.contentTypes).toContain('application/x-protobuf');
    expect(create.attributes).toMatchObject({ 'onejob.job.id': id, 'onejob.operation': 'noop' });
    expect(create.serviceName).toBe('onejob');
  });
});
