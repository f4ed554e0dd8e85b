import { randomBytes } from 'node:crypto';
import type { FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the auth hook from the bearer token; never from the body. */
    ownerId?: string;
    /** Fields a route adds to the one log line written per request (in onResponse). */
    logFields?: Record<string, unknown>;
  }
}

export function ownerOf(request: FastifyRequest): string {
  if (!request.ownerId) throw new Error('route needs authentication but no owner was resolved');
  return request.ownerId;
}

const TRACEPARENT = /^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;

/**
 * The W3C traceparent of the request, or a new one: every intent gets a trace id that
 * its events and provider calls carry, so it can be followed across systems.
 */
export function traceparentOf(request: FastifyRequest): string {
  const header = request.headers.traceparent;
  if (typeof header === 'string' && TRACEPARENT.test(header) && !/^00-0{32}-/.test(header)) return header;
  return `00-${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}-01`;
}
