// The tracing seam the engine writes spans to. By default it is a no-op that costs a
// function call; configureTracing() swaps in the OpenTelemetry exporter when an OTLP
// endpoint is configured. Parents are passed as W3C traceparent strings, the form the
// job row already stores, so a span started by a worker in another process joins the
// trace of the request that created the job.

export type SpanKindName = 'internal' | 'server' | 'client' | 'producer' | 'consumer';

export type SpanAttributes = Record<string, string | number | boolean | null | undefined>;

export interface SpanOptions {
  kind?: SpanKindName;
  /** The W3C traceparent of the parent span; none starts a new trace. */
  parent?: string | null | undefined;
  attributes?: SpanAttributes;
}

/** One span. Every method is safe to call after end() (it does nothing). */
export interface TraceSpan {
  /** The span's own traceparent, for children and outgoing requests; undefined when not tracing. */
  readonly traceparent: string | undefined;
  set(attributes: SpanAttributes): void;
  event(name: string, attributes?: SpanAttributes): void;
  /** Marks the span as failed. */
  fail(message: string): void;
  end(): void;
}

export interface Tracing {
  readonly enabled: boolean;
  start(name: string, options?: SpanOptions): TraceSpan;
  /** Exports the spans ended so far. */
  flush(): Promise<void>;
  /** Exports what is left and stops the exporter. */
  shutdown(): Promise<void>;
}

const NOOP_SPAN: TraceSpan = {
  traceparent: undefined,
  set() {},
  event() {},
  fail() {},
  end() {},
};

export const noopTracing: Tracing = {
  enabled: false,
  start: () => NOOP_SPAN,
  flush: async () => {},
  shutdown: async () => {},
};

let current: Tracing = noopTracing;

/** The process's tracing: a no-op unless configureTracing() loaded the exporter. */
export function tracing(): Tracing {
  return current;
}

export function setTracing(next: Tracing): void {
  current = next;
}
