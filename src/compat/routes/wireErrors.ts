// Every refusal on a compat route, from the auth hook's 401 to a reused key's 409, is
// written as a problem document by the shared handlers; this onSend hook rewrites it
// into the SDK's own error body, and tells the SDK whether retrying can help.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Problem } from '../../contract/problemSchema.js';
import type { WireAnswer } from '../wire.js';

/** Answers a retry can change (a body that came too slowly, a limit, a job still running). */
const RETRYABLE = new Set([408, 429, 503]);

export function shouldRetry(status: number): string | undefined {
  if (RETRYABLE.has(status)) return 'true';
  // An unexpected 500 is left to the SDK's own rule.
  if (status === 500) return undefined;
  return 'false';
}

export function wireErrors(wire: WireAnswer) {
  return async (_request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const type = String(reply.getHeader('content-type') ?? '');
    if (!type.startsWith('application/problem+json') || typeof payload !== 'string') return payload;
    const problem = JSON.parse(payload) as Problem;
    const retry = shouldRetry(reply.statusCode);
    if (retry) reply.header('x-should-retry', retry);
    reply.header('content-type', 'application/json; charset=utf-8');
    return JSON.stringify(
      wire.errorBody({
        status: reply.statusCode,
        code: problem.code,
        message: problem.detail,
        param: typeof problem.param === 'string' ? problem.param : undefined,
      }),
    );
  };
}
