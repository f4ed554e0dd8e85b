// The providers × operations matrix behind GET /v1/providers and `onejob providers list`.
import type { ProviderOperationStatus, ProviderStatus, VerificationStatus } from '../../contract/index.js';
import type { EngineDeps, GateDeps } from '../../engine/engineDeps.js';
import { providerCaps, providerLoad } from '../providerSlots.js';
import { contractHash, shownModelOf } from './contractHash.js';
import { latestVerifications } from './verificationStore.js';

// The wire contract's shapes of GET /v1/providers.
export type { ProviderOperationStatus, ProviderStatus, VerificationStatus };

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
  const load = await providerLoad(onejob.pool);
  const caps = providerCaps(onejob.config);
  const byPair = new Map(latest.map((l) => [`${l.provider}\u0000${l.operation}`, l]));
  return Object.entries(onejob.config.providers).map(([name, config]) => ({
    name,
    kind: config.kind,
    model: shownModelOf(config),
    maxConcurrency: caps[name] ?? null,
    inFlight: caps[name] === undefined ? null : (load.get(name)?.inFlight ?? 0),
    pausedUntil: load.get(name)?.pausedUntil?.toISOString() ?? null,
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
