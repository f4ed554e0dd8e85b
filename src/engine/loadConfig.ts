// The configuration as the engine accepts it: the config's own shape and references
// (src/config/loadConfig.ts), then what each domain says its settings must mean, passed
// in as one explicit list. `onejob serve` and `loadConfig` refuse the same settings.

import { type ConfigCheck, loadConfigWith, validateConfigWith } from '../config/loadConfig.js';
import type { OnejobConfig } from '../config/types.js';
import { inboxSources } from '../inbox/inboxSources.js';
import { publisherConfigProblems } from '../outbox/publisherConfigProblems.js';
import { checkCompatModels } from '../providers/checkCompatModels.js';
import { providerConfigProblems } from '../providers/providerConfigProblems.js';

export { ConfigError, type ConfigProblem } from '../config/loadConfig.js';

/** Every domain's check of what its settings mean. */
export const configChecks: readonly ConfigCheck[] = [
  providerConfigProblems,
  publisherConfigProblems,
  // Secrets, schemes and signed event ids: the sources are built here once, as the server
  // builds them, so a bad source is refused when the config loads.
  (config, env, source) => {
    inboxSources(config, env, source);
    return [];
  },
  (config, _env, source) => {
    checkCompatModels(config, source);
    return [];
  },
];

/**
 * Validates a parsed configuration: its shape, then the references between its parts,
 * then what each setting means to providers, publishers, inbox sources and compat models.
 * Throws ConfigError listing every problem found, each with the JSON pointer of its key
 * (the references are checked once the shape is right).
 *
 * @example
 * ```ts
 * const config = validateConfig(JSON.parse(text), 'onejob.json', process.env); // throws ConfigError
 * ```
 */
export function validateConfig(
  raw: unknown,
  source = 'config',
  env: NodeJS.ProcessEnv = process.env,
): OnejobConfig {
  return validateConfigWith(configChecks, raw, source, env);
}

/**
 * Loads the config file at `path`, or the built-in default when `path` is undefined.
 *
 * @example
 * ```ts
 * const config = await loadConfig('examples/config/payments-http.json');
 * const onejob = createOnejob({ pool, config });
 * ```
 */
export async function loadConfig(
  path: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): Promise<OnejobConfig> {
  return loadConfigWith(configChecks, path, env);
}
