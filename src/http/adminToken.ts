// Operator endpoints (provider verification, dead letters) declare `config: { admin: true }`
// and need ONEJOB_ADMIN_TOKEN as their bearer token; API keys do not open them.
import { createHash, timingSafeEqual } from 'node:crypto';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route is an operator endpoint: only the admin token opens it. */
    admin?: boolean;
  }
}

const digest = (s: string) => createHash('sha256').update(s).digest();

/** Constant-time comparison; false when no admin token is configured. */
export function isAdminToken(given: string | undefined, adminToken: string | undefined): boolean {
  if (!given || !adminToken) return false;
  return timingSafeEqual(digest(given), digest(adminToken));
}
