import { readFile } from 'node:fs/promises';
import { Ajv, type ErrorObject } from 'ajv';
import { inboxSources } from '../inbox/inboxSources.js';
import { webhookSecretProblem } from '../outbox/publishers/webhookPublisher.js';
import { type OutputRule, ruleProblems } from '../providers/inference/outputRules.js';
import { ConfigError } from './ConfigError.js';
import { checkCompatModels } from './checkCompatModels.js';
import { configSchema } from './configSchema.js';
import { defaultConfig } from './defaultConfig.js';
import type { OnejobConfig } from './types.js';

export { ConfigError };

const ajv = new Ajv({ allErrors: false, discriminator: true, strict: false });
const validateShape = ajv.compile(configSchema);

function describe(error: ErrorObject): { path: string; message: string } {
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'additionalProperties') {
    return {
      path: `${error.instancePath}/${String(params.additionalProperty)}`,
      message: 'is not a known key',
    };
  }
  if (error.keyword === 'discriminator') {
    const kinds = error.instancePath.startsWith('/outbox/publishers/')
      ? 'nats, rabbitmq, webhook, log'
      : 'http, openai-compatible, anthropic, simulated';
    return { path: `${error.instancePath}/kind`, message: `must be one of ${kinds}` };
  }
  if (error.keyword === 'required') {
    return { path: `${error.instancePath}/${String(params.missingProperty)}`, message: 'is required' };
  }
  if (error.keyword === 'propertyNames') {
    return { path: `${error.instancePath}/${String(params.propertyName)}`, message: 'is not a valid name' };
  }
  return { path: error.instancePath, message: error.message ?? 'is invalid' };
}

/**
 * Validates a parsed configuration: its shape, then the references between its parts.
 * Throws ConfigError naming the first bad key.
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
  if (!validateShape(raw)) {
    const first = validateShape.errors?.[0];
    const { path, message } = first ? describe(first) : { path: '', message: 'is invalid' };
    throw new ConfigError(path, message, source);
  }
  const config = raw as unknown as OnejobConfig;
  for (const [name, op] of Object.entries(config.operations)) {
    op.providers.forEach((provider, i) => {
      if (!config.providers[provider]) {
        throw new ConfigError(
          `/operations/${name}/providers/${i}`,
          `names provider "${provider}", which is not configured`,
          source,
        );
      }
    });
    // Model adapters and the simulator hold answers to the output contract; an http provider would pass anything through.
    op.providers.forEach((provider, i) => {
      const kind = config.providers[provider]?.kind;
      if (op.kind === 'inference.chat' && kind === 'http') {
        throw new ConfigError(
          `/operations/${name}/providers/${i}`,
          `names provider "${provider}" of kind http, which cannot run inference.chat operations`,
          source,
        );
      }
    });
    if (op.kind === 'inference.chat' && !op.prompt) {
      throw new ConfigError(
        `/operations/${name}/prompt`,
        'is required for inference.chat operations',
        source,
      );
    }
    if (op.hedgeAfterMs !== undefined && op.effect !== 'pure') {
      throw new ConfigError(
        `/operations/${name}/hedgeAfterMs`,
        'is only allowed for operations with effect "pure"',
        source,
      );
    }
    for (const problem of ruleProblems((op.rules ?? []) as OutputRule[])) {
      throw new ConfigError(`/operations/${name}/rules/${problem.index}`, problem.message, source);
    }
    for (const key of ['inputSchema', 'outputSchema'] as const) {
      const schema = op[key];
      if (!schema) continue;
      try {
        new Ajv({ strict: false }).compile(schema);
      } catch (error) {
        throw new ConfigError(
          `/operations/${name}/${key}`,
          `is not a valid JSON Schema: ${(error as Error).message}`,
          source,
        );
      }
    }
  }
  checkCompatModels(config, source);
  for (const [name, provider] of Object.entries(config.providers)) {
    if ((provider.kind === 'openai-compatible' || provider.kind === 'anthropic') && provider.apiKeyEnv) {
      if (!env[provider.apiKeyEnv]) {
        throw new ConfigError(
          `/providers/${name}/apiKeyEnv`,
          `names environment variable ${provider.apiKeyEnv}, which is not set`,
          source,
        );
      }
    }
  }
  const publisherNames = new Set<string>();
  (config.outbox?.publishers ?? []).forEach((publisher, i) => {
    const name = publisher.name ?? publisher.kind;
    if (publisherNames.has(name)) {
      throw new ConfigError(
        `/outbox/publishers/${i}/name`,
        `"${name}" is already used by another publisher; give each one its own name`,
        source,
      );
    }
    publisherNames.add(name);
    if (publisher.kind === 'webhook' && !env[publisher.secretEnv]) {
      throw new ConfigError(
        `/outbox/publishers/${i}/secretEnv`,
        `names environment variable ${publisher.secretEnv}, which is not set`,
        source,
      );
    }
    const weak = publisher.kind === 'webhook' && webhookSecretProblem(env[publisher.secretEnv] as string);
    if (weak)
      throw new ConfigError(`/outbox/publishers/${i}/secretEnv`, `${publisher.secretEnv} ${weak}`, source);
  });
  for (const [name, src] of Object.entries(config.inbox?.sources ?? {})) {
    if (!config.operations[src.operation]) {
      throw new ConfigError(
        `/inbox/sources/${name}/operation`,
        `names operation "${src.operation}", which is not configured`,
        source,
      );
    }
  }
  // Secrets, schemes and signed event ids: the same checks the server runs when it builds
  // the sources, made here so a bad source is refused when the config loads.
  inboxSources(config, env, source);
  return config;
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
  if (!path) return validateConfig(structuredClone(defaultConfig), 'default config', env);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new ConfigError('', `cannot be read: ${(error as Error).message}`, path);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new ConfigError('', `is not valid JSON: ${(error as Error).message}`, path);
  }
  return validateConfig(raw, path, env);
}
