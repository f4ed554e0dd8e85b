import type { FastifyReply, FastifyRequest } from 'fastify';
import { OnejobError } from '../errors/OnejobError.js';
import { isAdminToken, isSameSecret } from './adminToken.js';
import type { ApiKeys } from './apiKeys.js';
import type { TokenBuckets } from './limits/TokenBuckets.js';
import { sendProblem } from './sendProblem.js';

export interface AuthOptions {
  apiKeys: ApiKeys;
  adminToken: string | undefined;
  metricsToken: string | undefined;
  /** Per-owner request bucket; undefined when limits are off. */
  requests: TokenBuckets | undefined;
  /** Failed authentications per client address; undefined when limits are off. */
  failures?: TokenBuckets | undefined;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route also takes the owner token from `x-api-key`, the header the Anthropic SDK sends. */
    apiKeyHeader?: boolean;
  }
}

const apiKeyOf = (request: FastifyRequest) => {
  const header = request.headers['x-api-key'];
  return typeof header === 'string' && header.length > 0 ? header : undefined;
};

const bearerOf = (request: FastifyRequest) => {
  const header = request.headers.authorization;
  return typeof header === 'string' ? /^Bearer\s+(\S+)$/i.exec(header)?.[1] : undefined;
};

function isLoopback(address: string | undefined): boolean {
  return !!address && (address === '::1' || /^(::ffff:)?127\./.test(address));
}

// A reverse proxy on the same host connects from loopback on behalf of anyone: a request
// that says it was forwarded is not a loopback client, whatever its socket says.
const FORWARDING_HEADERS = ['forwarded', 'x-forwarded-for', 'x-forwarded-host', 'x-real-ip'];

function isLoopbackClient(request: FastifyRequest): boolean {
  return (
    isLoopback(request.socket.remoteAddress) &&
    !FORWARDING_HEADERS.some((name) => request.headers[name] !== undefined)
  );
}

/**
 * The auth hook. A route is public only when its own options say `config: { public: true }`:
 * a route added later under a public route's path needs a token unless it says so too.
 * `/metrics` shows every tenant's volumes, so it has a token of its own; without one set,
 * only clients on the loopback interface are served.
 */
export function authenticate(options: AuthOptions) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const config = request.routeOptions.config;
    // No route matched: the not-found handler answers 404 and opens nothing.
    if (config?.public || request.routeOptions.url === undefined) return;
    // Guessing tokens costs a token of the address's failure bucket; once it is empty,
    // nothing from the address is checked (a right guess included) until it refills.
    const address = request.socket.remoteAddress ?? 'unknown';
    const throttled = options.failures?.wait(address) ?? 0;
    if (throttled > 0) return sendProblem(reply, authThrottled(throttled));
    const refuse = (error: OnejobError) => {
      options.failures?.take(address);
      return sendProblem(reply, error);
    };
    const token = bearerOf(request) ?? (config?.apiKeyHeader ? apiKeyOf(request) : undefined);
    if (config?.metrics) {
      if (options.metricsToken ? isSameSecret(token, options.metricsToken) : isLoopbackClient(request))
        return;
      const why = options.metricsToken
        ? 'Send Authorization: Bearer <ONEJOB_METRICS_TOKEN>.'
        : 'ONEJOB_METRICS_TOKEN is not set, so /metrics answers loopback clients only, never a forwarded request.';
      return refuse(new OnejobError('metrics_token_required', why));
    }
    if (config?.admin) {
      if (isAdminToken(token, options.adminToken)) return;
      const why = options.adminToken
        ? 'Send Authorization: Bearer <ONEJOB_ADMIN_TOKEN>.'
        : 'ONEJOB_ADMIN_TOKEN is not set, so operator endpoints are closed.';
      return refuse(new OnejobError('admin_token_required', why));
    }
    const owner = token ? options.apiKeys.ownerOf(token) : undefined;
    if (!owner) {
      return refuse(
        new OnejobError(
          'unauthorized',
          token ? 'The bearer token is not recognised.' : 'Send Authorization: Bearer <token>.',
        ),
      );
    }
    const wait = options.requests?.take(owner) ?? 0;
    if (wait > 0) return sendProblem(reply, rateLimited(wait, 'requests'));
    request.ownerId = owner;
  };
}

function authThrottled(retryAfterSeconds: number): OnejobError {
  return new OnejobError(
    'authentication_throttled',
    `Too many failed authentications from this address; retry in ${retryAfterSeconds} s.`,
    { retryAfterSeconds },
  );
}

export function rateLimited(retryAfterSeconds: number, what: string): OnejobError {
  return new OnejobError(
    'rate_limited',
    `This owner's ${what} are over the configured limit; retry in ${retryAfterSeconds} s.`,
    { retryAfterSeconds },
  );
}
