// What a verification proves is tied to one contract: the prompt template, the output
// schema, the business rules and the model behind the provider. Change any of them and
// the hash changes, so earlier verifications no longer count.
import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import type { OperationConfig, ProviderConfig } from '../../config/types.js';
import { redactUrl } from '../../observability/redactUrl.js';

export interface ContractParts {
  prompt: OperationConfig['prompt'] | null;
  outputSchema: OperationConfig['outputSchema'] | null;
  rules: unknown[];
  /** The model for LLM providers; the URL for http providers; null for simulated ones. */
  model: string | null;
}

/** What the contract is tied to; an http provider's full URL, so only ever hashed, never shown. */
export function modelOf(provider: ProviderConfig): string | null {
  if (provider.kind === 'openai-compatible' || provider.kind === 'anthropic') return provider.model;
  if (provider.kind === 'http') return provider.url;
  return null;
}

/**
 * The model as tenants, reports and logs see it: an http provider's URL may carry
 * `user:password@` or `?apikey=`, so it is shown as scheme, host and port only.
 */
export function shownModelOf(provider: ProviderConfig): string | null {
  return provider.kind === 'http' ? redactUrl(provider.url) : modelOf(provider);
}

export function contractParts(operation: OperationConfig, provider: ProviderConfig): ContractParts {
  return {
    prompt: operation.prompt ?? null,
    outputSchema: operation.outputSchema ?? null,
    rules: operation.rules ?? [],
    model: modelOf(provider),
  };
}

export function contractHash(operation: OperationConfig, provider: ProviderConfig): string {
  const canonical = (canonicalize as unknown as (v: unknown) => string)(contractParts(operation, provider));
  return createHash('sha256').update(canonical).digest('hex');
}
