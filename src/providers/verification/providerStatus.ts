// The providers × operations matrix behind GET /v1/providers and `onejob providers list`.
import type { EngineDeps, GateDeps } from '../../engine/engineDeps.js';
import { contractHash, shownModelOf } from './contractHash.js';
import { latestVerifications } from './verificationStore.js';

export type VerificationStatus = 'verified' | 'stale' | 'failed' | 'never';

/** One provider's role and verification status for one operation it serves. */
export interface ProviderOperationStatus {
  operation: string;
  /** The primary (first listed) is always allowed; a fallback only when `verified`. */
  role: 'primary' | 'fallback';
  status: VerificationStatus;
  /** May the engine fail over (or hedge) to this provider for this operation now? */
  failoverAllowed: boolean;
  contractHash: string;
  lastVerification: { id: string; passed: boolean; contractHash: string; finishedAt: string } | null;
}

/** A configured provider and its status for every operation it serves. */
export interface ProviderStatus {
  name: string;
  kind: string;
  model: string | null;
  operations: ProviderOperationStatus[];
}

/**
 * verified: the latest verification under the current contract passed; failed: it did not;
 * stale: verifications exist, but only for an earlier contract; never: none at all.
 */
export async function providerStatuses(
  onejob: GateDeps & Pick<EngineDeps, 'operations'>,
): Promise<ProviderStatus[]> {
  const pairs: { provider: string; operation: string; hash: string; role: 'primary' | 'fallback' }[] = [];
  for (const opName of onejob.operations.names()) {
    const operation = onejob.operations.get(opName);
    if (!operation?.config) continue;
    operation.providers.forEach((provider, i) => {
      const config = onejob.config.providers[provider];
      if (!config) return;
      pairs.push({
        provider,
        operation: opName,
        hash: contractHash(operation.config!, config),
        role: i === 0 ? 'primary' : 'fallback',
      });
    });
  }
  const latest = await latestVerifications(onejob.pool, pairs);
  const byPair = new Map(latest.map((l) => [`${l.provider}\u0000${l.operation}`, l]));
  return Object.entries(onejob.config.providers).map(([name, config]) => ({
    name,
    kind: config.kind,
    model: shownModelOf(config),
    operations: pairs
      .filter((p) => p.provider === name)
      .map((p) => {
        const l = byPair.get(`${p.provider}\u0000${p.operation}`);
        const status: VerificationStatus = l?.current
          ? l.current.passed
            ? 'verified'
            : 'failed'
          : l?.latest
            ? 'stale'
            : 'never';
        return {
          operation: p.operation,
          role: p.role,
          status,
          failoverAllowed: p.role === 'primary' || status === 'verified',
          contractHash: p.hash,
          lastVerification: l?.latest
            ? {
                id: l.latest.id,
                passed: l.latest.passed,
                contractHash: l.latest.contractHash,
                finishedAt: l.latest.finishedAt.toISOString(),
              }
            : null,
        };
      }),
  }));
}
