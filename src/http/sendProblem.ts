import type { FastifyReply } from 'fastify';
import { problemDocument } from '../contract/problemDocument.js';
import type { ErrorCode } from '../errors/errorRegistry.js';
import { OnejobError } from '../errors/OnejobError.js';

export function sendProblem(reply: FastifyReply, error: OnejobError | ErrorCode, detail?: string) {
  const e = typeof error === 'string' ? new OnejobError(error, detail) : error;
  if (e.code === 'database_unavailable') reply.header('Retry-After', '1');
  if (e.code === 'rate_limited' || e.code === 'authentication_throttled')
    reply.header('Retry-After', String(e.extra?.retryAfterSeconds ?? 1));
  if (e.code === 'unauthorized') reply.header('WWW-Authenticate', 'Bearer');
  return reply.code(e.status).type('application/problem+json').send(problemDocument(e));
}
