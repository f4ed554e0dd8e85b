import type { GateDeps } from '../engine/engineDeps.js';
import { OnejobError } from '../errors/OnejobError.js';
import type { Operation } from '../operations/operationRegistry.js';
import { canFailOverTo } from '../providers/failoverGate.js';

/**
 * The provider for attempt `n`: the operation's providers in turn, starting with the
 * primary. A non-primary provider is used only if the failover gate allows it;
 * otherwise the attempt goes to the primary.
 */
export async function providerForAttempt(onejob: GateDeps, operation: Operation, n: number): Promise<string> {
  const primary = operation.providers[0];
  if (!primary) throw new Error(`operation ${operation.name} lists no provider`);
  const candidate = operation.providers[(n - 1) % operation.providers.length] ?? primary;
  if (candidate === primary) return primary;
  return (await canFailOverTo(onejob, operation, candidate)) ? candidate : primary;
}

/**
 * providerForAttempt for every attempt number at once: index (n-1) % length is the
 * provider of attempt n. The batch claim statement picks from this list.
 */
export async function providerRotation(onejob: GateDeps, operation: Operation): Promise<string[]> {
  const primary = operation.providers[0];
  if (!primary) throw new Error(`operation ${operation.name} lists no provider`);
  return Promise.all(
    operation.providers.map(async (candidate) =>
      candidate === primary || (await canFailOverTo(onejob, operation, candidate)) ? candidate : primary,
    ),
  );
}

/** The provider after `current` in the operation's list, if the gate allows failing over to it. */
export async function hedgeProvider(
  onejob: GateDeps,
  operation: Operation,
  current: string,
): Promise<string | undefined> {
  const i = operation.providers.indexOf(current);
  const next = operation.providers[(i + 1) % operation.providers.length];
  if (!next || next === current) return undefined;
  if (next !== operation.providers[0] && !(await canFailOverTo(onejob, operation, next))) return undefined;
  return next;
}

/** The provider a person asked for (the fallback button): listed, and verified unless it is the primary. */
export async function requestedProvider(
  onejob: GateDeps,
  operation: Operation,
  provider: string,
): Promise<string> {
  if (!operation.providers.includes(provider)) {
    throw new OnejobError(
      'provider_unknown',
      `Provider "${provider}" is not configured for operation "${operation.name}".`,
      {
        providers: operation.providers,
      },
    );
  }
  if (provider !== operation.providers[0] && !(await canFailOverTo(onejob, operation, provider))) {
    throw new OnejobError(
      'provider_not_verified',
      `Provider "${provider}" has no passing contract verification for operation "${operation.name}"; onejob will not fail over to it.`,
      { provider, operation: operation.name },
    );
  }
  return provider;
}
