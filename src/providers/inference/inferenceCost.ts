import type { Prices } from '../../config/types.js';
import type { Usage } from '../types.js';

/**
 * Cost of one call in micro-units of the provider's currency: tokens times the
 * per-million prices, plus the flat per-call price. Undefined when the provider has no
 * prices configured, so "free" and "unknown" stay distinguishable.
 */
export function inferenceCost(prices: Prices | undefined, usage: Usage | undefined): number | undefined {
  if (!prices) return undefined;
  const input = ((usage?.inputTokens ?? 0) * (prices.inputPerMillionMicros ?? 0)) / 1_000_000;
  const output = ((usage?.outputTokens ?? 0) * (prices.outputPerMillionMicros ?? 0)) / 1_000_000;
  return Math.round(input + output + (prices.perCallMicros ?? 0));
}
