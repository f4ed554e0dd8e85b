// A compat model is an operation in disguise: `compat.models.<name>` becomes the operation
// `compat:<name>` of kind `compat.chat`, whose job input is the normalised chat request.
// Its attempts, hedges, failover gate, verification and costs are the engine's own.

import type { CompatConfig, CompatModelConfig, OnejobConfig, OperationConfig } from '../config/types.js';
import { type Operation, operationFromConfig } from '../operations/operationRegistry.js';
import { type ChatCompletion, type ChatRequest, conversationText } from './chatRequest.js';

/** The operation kind of compat models; the chat adapters send its input as it is. */
export const COMPAT_KIND = 'compat.chat';

/** Defaults of `compat` and `compat.models.<name>` (docs/configuration.md). */
export const COMPAT_DEFAULTS = {
  /**
   * How long a call without `x-stainless-timeout` waits for its job before answering 503:
   * a minute under the SDKs' default timeout (10 min), so the client reads the 503 and
   * retries under the same key instead of timing out itself.
   */
  waitMs: 540_000,
  /** The longest any call waits, whatever deadline the client sends. */
  maxWaitMs: 600_000,
  model: {
    // A chat completion has no side effect beyond its cost: hedging and failover are allowed.
    effect: 'pure' as const,
    // Generations take longer than the calls an `http` operation makes.
    attemptTimeoutMs: 120_000,
    maxAttempts: 3,
  },
};

/** The operation name of a compat model: `:` is not allowed in configured operation names, so none collides. */
export const compatOperationName = (model: string) => `compat:${model}`;

/** The model name of a compat operation, or undefined when `operation` is not one. */
export function compatModelOf(operation: string): string | undefined {
  return operation.startsWith('compat:') ? operation.slice('compat:'.length) : undefined;
}

/**
 * The operation config a model stands for. Its contract's schema and rules sit where an
 * `inference.chat` operation keeps them, so the contract hash and the failover gate
 * treat both alike; it has no prompt, because the request is the prompt.
 */
export function compatOperationConfig(model: CompatModelConfig): OperationConfig {
  const { outputSchema, rules, ...contract } = model.contract ?? {};
  return {
    kind: 'inference.chat',
    providers: model.providers,
    effect: model.effect ?? COMPAT_DEFAULTS.model.effect,
    attemptTimeoutMs: model.attemptTimeoutMs ?? COMPAT_DEFAULTS.model.attemptTimeoutMs,
    maxAttempts: model.maxAttempts ?? COMPAT_DEFAULTS.model.maxAttempts,
    ...(model.hedgeAfterMs !== undefined ? { hedgeAfterMs: model.hedgeAfterMs } : {}),
    ...(outputSchema ? { outputSchema } : {}),
    ...(rules ? { rules } : {}),
    ...(model.contract ? { contract } : {}),
  };
}

/** The operations of every configured compat model. */
export function compatOperations(config: OnejobConfig): Operation[] {
  return Object.entries(config.compat?.models ?? {}).map(([name, model]) => ({
    ...operationFromConfig(compatOperationName(name), compatOperationConfig(model)),
    kind: COMPAT_KIND,
    ...(model.maxOutputTokens !== undefined ? { maxOutputTokens: model.maxOutputTokens } : {}),
    promptOf: (input) => conversationText(input as unknown as ChatRequest),
    contractValue: (result) =>
      contractValue(result as ChatCompletion, model.contract?.outputSchema !== undefined),
  }));
}

/** With an output schema the answer text must be JSON, checked parsed; without one the rules see the text. */
function contractValue(completion: ChatCompletion, json: boolean): unknown {
  if (!json) return completion.text;
  try {
    return JSON.parse(completion.text) as unknown;
  } catch {
    return completion.text;
  }
}

/** `compat` with its defaults filled in. */
export function compatSettings(config: CompatConfig | undefined) {
  const maxWaitMs = config?.maxWaitMs ?? COMPAT_DEFAULTS.maxWaitMs;
  return { waitMs: Math.min(config?.waitMs ?? COMPAT_DEFAULTS.waitMs, maxWaitMs), maxWaitMs };
}
