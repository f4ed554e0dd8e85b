import { randomFillSync } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { TraceSpan } from '../observability/tracing/tracing.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the auth hook from the bearer token; never from the body. */
    ownerId?: string;
    /** Fields a route adds to the one log line written per request (in onResponse). */
    logFields?: Record<string, unknown>;
    /** The request's server span while traces are exported (requestSpan.ts). */
    span?: TraceSpan;
  }
}

export function ownerOf(request: FastifyRequest): string {
  if (!request.ownerId) throw new Error('route needs authentication but no owner was resolved');
  return request.ownerId;
}

// Random bytes for new trace ids, drawn from a pool refilled 256 ids at a time: one call
// into the CSPRNG per request showed up as 5% of the server's CPU under load.
const POOL = Buffer.allocUnsafe(24 * 256);
let poolOffset = POOL.length;
function randomHex24(): string {
  if (poolOffset >= POOL.length) {
    randomFillSync(POOL);
    poolOffset = 0;
  }
  poolOffset += 24;
  return POOL.toString('hex', poolOffset - 24, poolOffset);
}

const TRACEPARENT = /^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;

/**
 * The W3C traceparent of the request (its server span's, when traces are exported), or a
 * new one: every intent gets a trace id that its events and provider calls carry, so it
 * can be followed across systems.
 */
export function traceparentOf(request: FastifyRequest): string {
  // When traces are exported, the request's span is the parent of what the request starts.
  if (request.span?.traceparent) return request.span.traceparent;
  const header = request.headers.traceparent;
  if (typeof header === 'string' && TRACEPARENT.test(header) && !/^00-0{32}-/.test(header)) return header;
  const hex = randomHex24();
  return `00-${hex.slice(0, 32)}-${hex.slice(32)}-01`;
}
