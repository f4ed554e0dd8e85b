// Operator endpoints (provider verification, dead letters) declare `config: { admin: true }`
// and need ONEJOB_ADMIN_TOKEN as their bearer token; API keys do not open them.
import { createHash, timingSafeEqual } from 'node:crypto';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route is an operator endpoint: only the admin token opens it. */
    admin?: boolean;
    /** The route needs no bearer token (probes, docs, the signed inbox): declared route by route. */
    public?: boolean;
    /** The route is `/metrics`: the metrics token opens it (docs/operations.md). */
    metrics?: boolean;
  }
}

const digest = (s: string) => createHash('sha256').update(s).digest();

/** Constant-time comparison; false when no admin token is configured. */
export function isAdminToken(given: string | undefined, adminToken: string | undefined): boolean {
  return isSameSecret(given, adminToken);
}

/** Constant-time comparison of a presented token with a configured one; false when either is missing. */
export function isSameSecret(given: string | undefined, expected: string | undefined): boolean {
  if (!given || !expected) return false;
  return timingSafeEqual(digest(given), digest(expected));
}
