import type { GateDeps } from '../engine/engineDeps.js';
import type { Operation } from '../operations/operationRegistry.js';
import { contractHash } from './verification/contractHash.js';
import { latestPassedForContract } from './verification/verificationStore.js';
// A missing prompt variable must be an input error at job creation wherever jobs are made.

/**
 * May the engine send an attempt of `operation` to `provider` when it is not the
 * operation's primary (retries on another provider, hedges, the fallback button)?
 * The primary (first listed provider) is always allowed. Any other provider only when
 * its latest verification under the operation's current contract hash passed: a
 * provider that never proved it honours the contract, failed to, or proved it for an
 * older prompt, schema, rule set or model, is not a fallback.
 */
export async function canFailOverTo(
  onejob: GateDeps,
  operation: Operation,
  provider: string,
): Promise<boolean> {
  if (!operation.providers.includes(provider)) return false;
  if (operation.providers[0] === provider) return true;
  const providerConfig = onejob.config.providers[provider];
  if (!providerConfig || !operation.config) return false;
  const hash = contractHash(operation.config, providerConfig);
  return (await latestPassedForContract(onejob.pool, provider, operation.name, hash)) === true;
}
