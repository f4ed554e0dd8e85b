// Turns code operations into what the engine is built from, before it is built: each
// becomes an Operation (so intake validates its input like any configured operation) and
// each of its provider names a code Provider (so the worker runs it like any other attempt).
import type { Logger } from 'pino';
import type { OnejobConfig, OperationConfig } from '../../config/types.js';
import type { Queryable } from '../../db/createPool.js';
import type { Provider } from '../../providers/types.js';
import type { AnyCodeOperation } from '../defineOperation.js';
import { type Operation, operationFromConfig } from '../operationRegistry.js';
import { createAttemptWatch } from './attemptWatch.js';
import { CODE_PROVIDER_KIND, createCodeProvider } from './codeProvider.js';

/** The code operations' parts: their operations, their providers, and what close() stops. */
export interface CodeOperationParts {
  readonly operations: readonly Operation[];
  readonly providers: readonly Provider[];
  close(): void;
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

/** Refuses a name defined twice, in code or in code and in the config; groups operations by provider. */
function operationsByProvider(
  config: OnejobConfig,
  codeOperations: readonly AnyCodeOperation[],
): Map<string, Map<string, AnyCodeOperation>> {
  const byProvider = new Map<string, Map<string, AnyCodeOperation>>();
  const seen = new Set<string>();
  for (const op of codeOperations) {
    if (seen.has(op.name) || config.operations[op.name])
      throw new TypeError(
        `createOnejob: operation "${op.name}" is defined twice (in code, or in code and in the config)`,
      );
    seen.add(op.name);
    for (const provider of op.definition.providers ?? [op.name]) {
      if (config.providers[provider])
        throw new TypeError(
          `createOnejob: code operation "${op.name}" names provider "${provider}", which the config already defines`,
        );
      const ops = byProvider.get(provider) ?? new Map<string, AnyCodeOperation>();
      ops.set(op.name, op);
      byProvider.set(provider, ops);
    }
  }
  return byProvider;
}

export function codeOperationParts(
  deps: { pool: Queryable; config: OnejobConfig; logger: Logger },
  codeOperations: readonly AnyCodeOperation[],
): CodeOperationParts {
  if (codeOperations.length === 0) return { operations: [], providers: [], close: () => undefined };
  const byProvider = operationsByProvider(deps.config, codeOperations);
  const log = deps.logger.child({ component: 'code-operations' });
  const watch = createAttemptWatch(deps.pool, (error) =>
    log.warn({ err: error }, 'watching code attempts failed'),
  );
  return {
    operations: codeOperations.map(operationFromCode),
    providers: [...byProvider].map(([provider, ops]) => createCodeProvider(provider, ops, watch, log)),
    close: () => watch.close(),
  };
}
