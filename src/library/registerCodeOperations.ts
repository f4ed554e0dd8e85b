// Puts code operations into an engine: each becomes an Operation in the registry (so
// intake validates its input like any configured operation) and each of its provider
// names a code Provider (so the worker runs it like any other attempt).
import type { Logger } from 'pino';
import type { OnejobConfig, OperationConfig } from '../config/types.js';
import type { Queryable } from '../db/createPool.js';
import {
  type Operation,
  type OperationRegistry,
  operationFromConfig,
} from '../operations/operationRegistry.js';
import type { ProviderRegistry } from '../providers/createProviders.js';
import { createAttemptWatch } from './attemptWatch.js';
import { CODE_PROVIDER_KIND, createCodeProvider } from './codeProvider.js';
import type { AnyCodeOperation } from './defineOperation.js';

export interface CodeOperationHost {
  pool: Queryable;
  config: OnejobConfig;
  operations: OperationRegistry;
  providers: ProviderRegistry;
  logger: Logger;
  onClose(fn: () => void): void;
}

/** The engine's view of a code operation; `config` stays undefined (there is no config entry). */
export function operationFromCode(op: AnyCodeOperation): Operation {
  const d = op.definition;
  // Reuses the configured-operation path for defaults and input validation; the kind has
  // no extra input check.
  const base = operationFromConfig(op.name, {
    kind: CODE_PROVIDER_KIND as OperationConfig['kind'],
    providers: [...(d.providers ?? [op.name])],
    effect: d.effect,
    attemptTimeoutMs: d.attemptTimeoutMs,
    maxAttempts: d.maxAttempts,
    hedgeAfterMs: d.hedgeAfterMs,
    retry: d.retry,
    inputSchema: d.inputSchema,
  });
  return { ...base, kind: CODE_PROVIDER_KIND, config: undefined };
}

export function registerCodeOperations(
  host: CodeOperationHost,
  codeOperations: readonly AnyCodeOperation[],
): void {
  if (codeOperations.length === 0) return;
  const byProvider = new Map<string, Map<string, AnyCodeOperation>>();
  const seen = new Set<string>();
  for (const op of codeOperations) {
    if (seen.has(op.name) || host.operations.get(op.name))
      throw new TypeError(
        `createOnejob: operation "${op.name}" is defined twice (in code, or in code and in the config)`,
      );
    seen.add(op.name);
    for (const provider of op.definition.providers ?? [op.name]) {
      if (host.config.providers[provider])
        throw new TypeError(
          `createOnejob: code operation "${op.name}" names provider "${provider}", which the config already defines`,
        );
      const ops = byProvider.get(provider) ?? new Map<string, AnyCodeOperation>();
      ops.set(op.name, op);
      byProvider.set(provider, ops);
    }
  }
  const log = host.logger.child({ component: 'code-operations' });
  const watch = createAttemptWatch(host.pool, (error) =>
    log.warn({ err: error }, 'watching code attempts failed'),
  );
  host.onClose(() => watch.close());
  for (const op of codeOperations) host.operations.add(operationFromCode(op));
  for (const [provider, ops] of byProvider) host.providers.set(createCodeProvider(provider, ops, watch, log));
}
