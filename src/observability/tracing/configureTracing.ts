// Loads OpenTelemetry only when an OTLP endpoint is configured: without one, no
// @opentelemetry module is imported and tracing stays the no-op of tracing.ts.
import { noopTracing, setTracing, tracing } from './tracing.js';

let loading: Promise<void> | undefined;

/** True when the standard OTLP variables ask for traces. */
export function tracingRequested(env: NodeJS.ProcessEnv): boolean {
  if (env.OTEL_SDK_DISABLED === 'true' || env.OTEL_TRACES_EXPORTER === 'none') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

/**
 * Starts exporting traces when the environment names an OTLP endpoint; once per process
 * (the exporter is process-wide, like the variables). Resolves when spans are exported.
 */
export function configureTracing(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  if (!tracingRequested(env)) return Promise.resolve();
  loading ??= import('./otelTracing.js').then((otel) => setTracing(otel.createOtelTracing(env)));
  return loading;
}

/** Exports the spans not yet sent and unloads the exporter (at process stop). */
export async function stopTracing(): Promise<void> {
  await loading?.catch(() => undefined);
  const current = tracing();
  setTracing(noopTracing);
  loading = undefined;
  await current.shutdown();
}
