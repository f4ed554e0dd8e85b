// One server span per HTTP request while traces are exported, child of the traceparent
// the client sent. Without an exporter, tracing is the no-op and nothing is attached.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { tracing } from '../observability/tracing/tracing.js';

/** Starts the request's server span (onRequest hook). */
export function startRequestSpan(request: FastifyRequest): void {
  const traces = tracing();
  if (!traces.enabled) return;
  const route = request.routeOptions.url;
  const header = request.headers.traceparent;
  request.span = traces.start(route ? `${request.method} ${route}` : request.method, {
    kind: 'server',
    parent: typeof header === 'string' ? header : undefined,
    attributes: {
      'http.request.method': request.method,
      'http.route': route,
      'url.path': request.url.split('?')[0],
    },
  });
}

/** Ends it with the status code (onResponse hook). */
export function endRequestSpan(request: FastifyRequest, reply: FastifyReply): void {
  const span = request.span;
  if (!span) return;
  span.set({ 'http.response.status_code': reply.statusCode });
  if (reply.statusCode >= 500) span.fail(`HTTP ${reply.statusCode}`);
  span.end();
}
