import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';

/**
 * SHA-256 (hex) of the RFC 8785 canonical JSON of a job request. Key order and number
 * formatting do not change it; any change of value does. `runAt` (an ISO instant, UTC, to
 * the millisecond) is part of it only when set: a request without one has the fingerprint
 * it always had, so the jobs of every earlier version still replay.
 *
 * @example
 * ```ts
 * fingerprint({ operation: 'charge', input: { amount: 1999 } }) === fingerprint({ input: { amount: 1999 }, operation: 'charge' }); // true
 * ```
 */
export function fingerprint(body: { operation: string; input: unknown; runAt?: string | null }): string {
  const request: Record<string, unknown> = { operation: body.operation, input: body.input };
  if (body.runAt != null) request.runAt = body.runAt;
  const canonical = (canonicalize as unknown as (v: unknown) => string | undefined)(request);
  if (canonical === undefined) throw new TypeError('job request is not JSON-serialisable');
  return createHash('sha256').update(canonical).digest('hex');
}
