// onejob.providers: the configured adapters by name, plus their contract verification
// status and the verification run the HTTP API and the CLI offer.
import type { VerifyDeps } from '../engine/engineDeps.js';
import type { ProviderRegistry } from '../providers/createProviders.js';
import { type ProviderStatus, providerStatuses } from '../providers/verification/providerStatus.js';
import {
  type VerificationReport,
  type VerifyOptions,
  verifyProvider,
} from '../providers/verification/verifyProvider.js';

/**
 * `onejob.providers`: each provider's verification status per operation, and verifying
 * one against an operation's contract.
 */
export interface ProvidersHandle extends ProviderRegistry {
  /** Every configured provider with its verification status per operation it serves. */
  list(): Promise<ProviderStatus[]>;
  /** One provider's status per operation, or undefined when no provider has that name. */
  status(name: string): Promise<ProviderStatus | undefined>;
  /** Runs and stores the contract verification of a provider for an operation (calls the provider). */
  verify(name: string, operation: string, options?: VerifyOptions): Promise<VerificationReport>;
}

export function createProvidersHandle(
  registry: ProviderRegistry,
  getDeps: () => VerifyDeps,
): ProvidersHandle {
  // The registry itself stays the object (workers and tests call get/set on it).
  return Object.assign(registry, {
    list: () => providerStatuses(getDeps()),
    status: async (name: string) => (await providerStatuses(getDeps())).find((p) => p.name === name),
    verify: (name: string, operation: string, options: VerifyOptions = {}) =>
      verifyProvider(getDeps(), name, operation, { requestedBy: 'library', ...options }),
  });
}
