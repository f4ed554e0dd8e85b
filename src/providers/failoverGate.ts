import type { Onejob } from '../createOnejob.js';
import type { Operation } from '../operations/operationRegistry.js';

/**
 * May the engine send an attempt of `operation` to `provider` when it is not the
 * operation's primary (retries on another provider, hedges, the fallback button)?
 * The primary (first listed provider) is always allowed.
 */
export async function canFailOverTo(_onejob: Onejob, operation: Operation, provider: string): Promise<boolean> {
  return operation.providers.includes(provider);
}
