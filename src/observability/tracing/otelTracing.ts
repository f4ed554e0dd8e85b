// The OpenTelemetry side of tracing.ts: the only module that imports @opentelemetry,
// loaded by configureTracing() only when an OTLP endpoint is configured. The SDK reads
// the standard variables itself (OTEL_TRACES_SAMPLER, the endpoint, headers and
// timeouts of the exporter); onejob picks the exporter by OTEL_EXPORTER_OTLP_PROTOCOL.
import {
  type Attributes,
  defaultTextMapGetter,
  defaultTextMapSetter,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { SpanAttributes, SpanKindName, SpanOptions, TraceSpan, Tracing } from './tracing.js';

const KINDS: Record<SpanKindName, SpanKind> = {
  internal: SpanKind.INTERNAL,
  server: SpanKind.SERVER,
  client: SpanKind.CLIENT,
  producer: SpanKind.PRODUCER,
  consumer: SpanKind.CONSUMER,
};

function attributesOf(attributes: SpanAttributes | undefined): Attributes {
  const out: Attributes = {};
  for (const [key, value] of Object.entries(attributes ?? {})) if (value != null) out[key] = value;
  return out;
}

/** `http/protobuf` (the default of the specification) or `http/json`; gRPC is not offered. */
export function otlpProtocol(env: NodeJS.ProcessEnv): 'http/protobuf' | 'http/json' {
  const protocol =
    env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/protobuf';
  if (protocol === 'http/json' || protocol === 'http/protobuf') return protocol;
  throw new Error(`OTEL_EXPORTER_OTLP_PROTOCOL=${protocol} is not supported: use http/protobuf or http/json`);
}

export function createOtelTracing(env: NodeJS.ProcessEnv): Tracing {
  const exporter = otlpProtocol(env) === 'http/json' ? new JsonExporter() : new ProtobufExporter();
  // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES (envDetector) win over the default name.
  const resource = resourceFromAttributes({ 'service.name': 'onejob' }).merge(
    detectResources({ detectors: [envDetector] }),
  );
  const provider = new BasicTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(exporter)] });
  const tracer = provider.getTracer('onejob');
  const propagator = new W3CTraceContextPropagator();

  function traceparentOf(span: Span): string | undefined {
    const carrier: Record<string, string> = {};
    propagator.inject(trace.setSpan(ROOT_CONTEXT, span), carrier, defaultTextMapSetter);
    return carrier.traceparent;
  }

  function wrap(span: Span): TraceSpan {
    return {
      traceparent: traceparentOf(span),
      set: (attributes) => span.setAttributes(attributesOf(attributes)),
      event: (name, attributes) => span.addEvent(name, attributesOf(attributes)),
      fail: (message) => span.setStatus({ code: SpanStatusCode.ERROR, message }),
      end: () => span.end(),
    };
  }

  return {
    enabled: true,
    start(name: string, options: SpanOptions = {}) {
      const parent = options.parent
        ? propagator.extract(ROOT_CONTEXT, { traceparent: options.parent }, defaultTextMapGetter)
        : ROOT_CONTEXT;
      const span = tracer.startSpan(
        name,
        { kind: KINDS[options.kind ?? 'internal'], attributes: attributesOf(options.attributes) },
        parent,
      );
      return wrap(span);
    },
    flush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
}
