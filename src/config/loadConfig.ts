// Reads and validates a configuration: its shape, and the references between its parts.
// What a setting means to providers, publishers, inbox sources or compat models is theirs
// to check; the caller passes those checks in (the engine's list is src/engine/loadConfig.ts),
// so this base module imports nothing of the domain.
import { readFile } from 'node:fs/promises';
import { Ajv, type ErrorObject } from 'ajv';
import { ConfigError, type ConfigProblem } from './ConfigError.js';
import { configSchema } from './configSchema.js';
import { defaultConfig } from './defaultConfig.js';
import type { OnejobConfig } from './types.js';

export { ConfigError, type ConfigProblem };

/**
 * A check of what settings mean, run once the shape is right: returns its problems, or
 * throws ConfigError (counted like returned problems).
 */
export type ConfigCheck = (
  config: OnejobConfig,
  env: NodeJS.ProcessEnv,
  source: string,
) => readonly ConfigProblem[];

// allErrors: a file with three typos is refused once, naming all three. verbose: an error
// carries the schema it broke, so an enum or a discriminator can list the allowed values.
const ajv = new Ajv({ allErrors: true, verbose: true, discriminator: true, strict: false });
const validateShape = ajv.compile(configSchema);

const listed = (values: unknown) =>
  Array.isArray(values) ? values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(', ') : '';

function describe(error: ErrorObject): ConfigProblem {
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'additionalProperties') {
    return {
      path: `${error.instancePath}/${String(params.additionalProperty)}`,
      message: 'is not a known key',
    };
  }
  if (error.keyword === 'discriminator') {
    const branches = (error.parentSchema as { oneOf?: { properties?: { kind?: { const?: unknown } } }[] })
      .oneOf;
    const kinds = (branches ?? []).map((b) => b.properties?.kind?.const).filter((k) => k !== undefined);
    const given = params.tagValue === undefined ? 'is missing' : `is ${JSON.stringify(params.tagValue)}`;
    return { path: `${error.instancePath}/kind`, message: `${given}; it must be one of ${listed(kinds)}` };
  }
  if (error.keyword === 'enum') {
    return { path: error.instancePath, message: `must be one of ${listed(params.allowedValues)}` };
  }
  if (error.keyword === 'const') {
    return { path: error.instancePath, message: `must be ${JSON.stringify(params.allowedValue)}` };
  }
  if (error.keyword === 'not' && Array.isArray((error.schema as { enum?: unknown }).enum)) {
    return {
      path: error.instancePath,
      message: `must not be one of ${listed((error.schema as { enum: unknown[] }).enum)}`,
    };
  }
  if (error.keyword === 'required') {
    return { path: `${error.instancePath}/${String(params.missingProperty)}`, message: 'is required' };
  }
  if (error.keyword === 'propertyNames') {
    return { path: `${error.instancePath}/${String(params.propertyName)}`, message: 'is not a valid name' };
  }
  return { path: error.instancePath, message: error.message ?? 'is invalid' };
}

/** Every shape problem once, in document order of the errors Ajv found. */
function shapeProblems(errors: readonly ErrorObject[]): ConfigProblem[] {
  const seen = new Set<string>();
  const problems: ConfigProblem[] = [];
  // A propertyNames failure repeats as a bare "must match pattern" on the name itself.
  for (const error of errors.filter((e) => e.propertyName === undefined)) {
    const problem = describe(error);
    const key = `${problem.path} ${problem.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    problems.push(problem);
  }
  return problems;
}

/**
 * Validates a parsed configuration: its shape, then the references between its parts,
 * then `checks`. Throws ConfigError listing every problem found, each with the JSON
 * pointer of its key (the references and checks run once the shape is right).
 */
export function validateConfigWith(
  checks: readonly ConfigCheck[],
  raw: unknown,
  source = 'config',
  env: NodeJS.ProcessEnv = process.env,
): OnejobConfig {
  if (!validateShape(raw)) {
    const problems = shapeProblems(validateShape.errors ?? []);
    throw ConfigError.of(problems, source) ?? new ConfigError('', 'is invalid', source);
  }
  const config = raw as unknown as OnejobConfig;
  const problems = referenceProblems(config);
  for (const check of checks) {
    try {
      problems.push(...check(config, env, source));
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      problems.push(...error.problems);
    }
  }
  const refused = ConfigError.of(problems, source);
  if (refused) throw refused;
  return config;
}

/** What the schema cannot say: names that must exist, settings that need one another. */
function referenceProblems(config: OnejobConfig): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const problem = (path: string, message: string) => problems.push({ path, message });
  for (const [name, op] of Object.entries(config.operations)) {
    op.providers.forEach((provider, i) => {
      if (config.providers[provider] === undefined)
        problem(
          `/operations/${name}/providers/${i}`,
          `names provider "${provider}", which is not configured`,
        );
    });
    if (op.hedgeAfterMs !== undefined && op.effect !== 'pure')
      problem(`/operations/${name}/hedgeAfterMs`, 'is only allowed for operations with effect "pure"');
    for (const key of ['inputSchema', 'outputSchema'] as const) {
      const schema = op[key];
      if (!schema) continue;
      try {
        new Ajv({ strict: false }).compile(schema);
      } catch (error) {
        problem(`/operations/${name}/${key}`, `is not a valid JSON Schema: ${(error as Error).message}`);
      }
    }
  }
  const publisherNames = new Set<string>();
  (config.outbox?.publishers ?? []).forEach((publisher, i) => {
    const name = publisher.name ?? publisher.kind;
    if (publisherNames.has(name))
      problem(
        `/outbox/publishers/${i}/name`,
        `"${name}" is already used by another publisher; give each one its own name`,
      );
    publisherNames.add(name);
  });
  for (const [name, src] of Object.entries(config.inbox?.sources ?? {})) {
    if (!config.operations[src.operation])
      problem(
        `/inbox/sources/${name}/operation`,
        `names operation "${src.operation}", which is not configured`,
      );
  }
  return problems;
}

/** Loads the config file at `path`, or the built-in default when `path` is undefined, and validates it with `checks`. */
export async function loadConfigWith(
  checks: readonly ConfigCheck[],
  path: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): Promise<OnejobConfig> {
  if (!path) return validateConfigWith(checks, structuredClone(defaultConfig), 'default config', env);
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
  return validateConfigWith(checks, raw, path, env);
}
