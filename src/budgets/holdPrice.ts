// How much a call is held for before it is made: the most it can cost at its provider's
// prices (docs/budgets.md). Rounded up, so what the call really costs never exceeds it.
import type { OnejobConfig, ProviderConfig } from '../config/types.js';
import type { Operation } from '../operations/operationRegistry.js';
import { countPromptTokens } from '../providers/inference/checkTokenizer.js';
import { type RenderedPrompt, renderPrompt } from '../providers/inference/renderPrompt.js';
import { chooseTokenizer } from '../providers/inference/tokenizers.js';

/** A hold's size, in micro-units of `currency` (an ISO 4217 code). */
export interface HoldPrice {
  amountMicros: number;
  currency: string;
}

/** Output tokens held for a call that states no limit and whose model's window is unknown. */
export const DEFAULT_HELD_OUTPUT_TOKENS = 4096;

const INFERENCE_KINDS = new Set(['inference.chat', 'compat.chat']);

/** What a call's prompt says to the provider, when the operation is an inference. */
function promptOf(operation: Operation, input: Record<string, unknown>): RenderedPrompt | undefined {
  if (operation.promptOf) return operation.promptOf(input);
  const template = (operation.config as { prompt?: Parameters<typeof renderPrompt>[0] } | undefined)?.prompt;
  return template ? renderPrompt(template, input) : undefined;
}

/**
 * Prompt tokens: counted with the provider's tokenizer, as verification counts them; with
 * none known, the prompt's UTF-8 bytes, which no byte-level tokenizer can exceed.
 */
async function promptTokens(provider: ProviderConfig, prompt: RenderedPrompt): Promise<number> {
  const counted = await countPromptTokens(provider, prompt).catch(() => undefined);
  if (counted !== undefined) return counted;
  return Buffer.byteLength(`${prompt.system ?? ''}${prompt.user}`, 'utf8');
}

/**
 * Output tokens: the request's `max_tokens`, else the compat model's `maxOutputTokens`,
 * else the provider's `maxTokens` (sent with every Anthropic call), else the model's
 * context window less the prompt, else DEFAULT_HELD_OUTPUT_TOKENS.
 */
function outputTokens(
  operation: Operation,
  provider: ProviderConfig,
  input: Record<string, unknown>,
  prompt: number,
): number {
  const asked = input.maxTokens;
  if (typeof asked === 'number' && Number.isSafeInteger(asked) && asked > 0) return asked;
  if (operation.maxOutputTokens !== undefined) return operation.maxOutputTokens;
  if (provider.kind === 'anthropic' && provider.maxTokens !== undefined) return provider.maxTokens;
  const window = chooseTokenizer(provider).contextWindow;
  if (window !== undefined) return Math.max(window - prompt, 1);
  return DEFAULT_HELD_OUTPUT_TOKENS;
}

/**
 * The hold for a call of `operation` to the provider named `providerName` with `input`;
 * undefined when the provider has no prices (nothing to hold) or is not in the config
 * (a code provider of library mode).
 *
 * @example
 * ```ts
 * await holdPrice(config, operations.get('summarize')!, 'primary', { text: 'hello' });
 * // { amountMicros: 1843, currency: 'USD' }
 * ```
 */
export async function holdPrice(
  config: Pick<OnejobConfig, 'providers'>,
  operation: Operation,
  providerName: string,
  input: Record<string, unknown>,
): Promise<HoldPrice | undefined> {
  const provider = config.providers?.[providerName];
  const prices = provider?.prices;
  if (!provider || !prices) return undefined;
  let micros = prices.perCallMicros ?? 0;
  const perToken = (prices.inputPerMillionMicros ?? 0) > 0 || (prices.outputPerMillionMicros ?? 0) > 0;
  const prompt = perToken && INFERENCE_KINDS.has(operation.kind) ? promptOf(operation, input) : undefined;
  if (prompt) {
    const inTokens = await promptTokens(provider, prompt);
    const outTokens = outputTokens(operation, provider, input, inTokens);
    micros +=
      (inTokens * (prices.inputPerMillionMicros ?? 0) + outTokens * (prices.outputPerMillionMicros ?? 0)) /
      1_000_000;
  }
  const amountMicros = Math.ceil(micros);
  return amountMicros > 0 ? { amountMicros, currency: prices.currency ?? 'USD' } : undefined;
}
