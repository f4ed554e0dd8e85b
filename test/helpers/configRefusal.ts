import { defaultConfig } from '../../src/config/defaultConfig.js';
import { ConfigError, validateConfig } from '../../src/engine/loadConfig.js';

/** A configuration tests reach into to break it on purpose. */
export type LooseConfig = Record<string, any>;

/** A copy of the built-in default configuration, loose enough to break in any way. */
export const looseDefaultConfig = (): LooseConfig => structuredClone(defaultConfig) as unknown as LooseConfig;

/** The error that refuses the default configuration once `mutate` has changed it; throws if it is accepted. */
export function refusal(mutate: (c: LooseConfig) => void, env: NodeJS.ProcessEnv = {}): ConfigError {
  const config = looseDefaultConfig();
  mutate(config);
  try {
    validateConfig(config, 'test', env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('config was accepted');
}
