// onejob.providers: the configured adapters by name, plus their contract verification
// status and the verification run the HTTP API and the CLI offer.

import type { ProviderRegistry } from '../../providers/createProviders.js';
import { type ProviderStatus, providerStatuses } from '../../providers/verification/providerStatus.js';
import {
  type VerificationReport,
  type VerifyOptions,
  verifyProvider,
} from '../../providers/verification/verifyProvider.js';
import type { VerifyDeps } from '../engineDeps.js';

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

/** The registry the worker uses, and what verification reads and writes. */
export type ProvidersDeps = VerifyDeps & { readonly providers: ProviderRegistry };

export function createProvidersHandle(deps: ProvidersDeps): ProvidersHandle {
  const registry = deps.providers;
  return {
    // The same registry the worker runs from: a provider set here is the one attempts call.
    get: (name) => registry.get(name),
    set: (provider) => registry.set(provider),
    names: () => registry.names(),
    list: () => providerStatuses(deps),
    status: async (name) => (await providerStatuses(deps)).find((p) => p.name === name),
    verify: (name, operation, options = {}) =>
      verifyProvider(deps, name, operation, { requestedBy: 'library', ...options }),
  };
}
