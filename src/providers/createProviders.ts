// Builds the configured providers. One factory per `kind`; adding a kind is one entry.
import type { OnejobConfig, ProviderConfig } from '../config/types.js';
import { createAnthropicProvider } from './anthropicProvider.js';
import { createHttpProvider } from './httpProvider.js';
import { createOpenAiProvider } from './openaiProvider.js';
import { configuredSecrets, scrubbedProvider } from './scrubProviderAnswers.js';
import { createSimulatedProvider } from './simulatedProvider.js';
import type { Provider } from './types.js';

export type ProviderFactory = (name: string, config: ProviderConfig, env: NodeJS.ProcessEnv) => Provider;

export const providerFactories = new Map<string, ProviderFactory>([
  ['http', (name, config) => createHttpProvider(name, config as Extract<ProviderConfig, { kind: 'http' }>)],
  [
    'simulated',
    (name, config) => createSimulatedProvider(name, config as Extract<ProviderConfig, { kind: 'simulated' }>),
  ],
  [
    'openai-compatible',
    (name, config, env) =>
      createOpenAiProvider(name, config as Extract<ProviderConfig, { kind: 'openai-compatible' }>, env),
  ],
  [
    'anthropic',
    (name, config, env) =>
      createAnthropicProvider(name, config as Extract<ProviderConfig, { kind: 'anthropic' }>, env),
  ],
]);

/**
 * The providers of one configuration, by name. Each one's answers are scrubbed of the
 * configured secrets (src/providers/scrubProviderAnswers.ts) before the engine sees them.
 */
export interface ProviderRegistry {
  /** The provider `name`, or undefined when it is not configured or its kind has no factory. */
  get(name: string): Provider | undefined;
  /** Replaces or adds a provider (tests and library users with their own adapters). */
  set(provider: Provider): void;
  names(): string[];
}

/**
 * Builds the configured providers, and `more` built elsewhere (the code operations'),
 * which must not reuse a configured provider's name.
 */
export function createProviders(
  config: OnejobConfig,
  env: NodeJS.ProcessEnv = process.env,
  more: readonly Provider[] = [],
): ProviderRegistry {
  const secrets = configuredSecrets(config, env);
  const byName = new Map<string, Provider>();
  for (const [name, provider] of Object.entries(config.providers)) {
    const factory = providerFactories.get(provider.kind);
    // A kind without a factory stays absent; the worker fails its attempts with a clear error.
    if (factory) byName.set(name, scrubbedProvider(factory(name, provider, env), secrets));
  }
  for (const provider of more) {
    if (config.providers[provider.name])
      throw new TypeError(`provider "${provider.name}" is defined twice (in code and in the config)`);
    byName.set(provider.name, scrubbedProvider(provider, secrets));
  }
  return {
    get: (name) => byName.get(name),
    set: (provider) => void byName.set(provider.name, scrubbedProvider(provider, secrets)),
    names: () => [...byName.keys()],
  };
}
