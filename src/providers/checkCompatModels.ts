// References of `compat.models`: each model's providers must exist and speak a chat wire
// format, and only a pure model may hedge. Shape errors are the schema's; these are the
// links between parts the schema cannot see.
import { Ajv } from 'ajv';
import { ConfigError } from '../config/ConfigError.js';
import type { OnejobConfig } from '../config/types.js';
import { type OutputRule, ruleProblems } from './inference/outputRules.js';

/**
 * Provider kinds a compat model can send a chat request to: the two chat wire formats,
 * and the simulated provider, which answers without a network (src/providers/simulatedCompletion.ts).
 */
export const COMPAT_PROVIDER_KINDS: readonly string[] = ['openai-compatible', 'anthropic', 'simulated'];

/** Throws ConfigError naming the first bad key under `compat.models`. */
export function checkCompatModels(config: OnejobConfig, source: string): void {
  for (const [name, model] of Object.entries(config.compat?.models ?? {})) {
    const at = `/compat/models/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    model.providers.forEach((provider, i) => {
      const kind = config.providers[provider]?.kind;
      if (kind === undefined)
        throw new ConfigError(
          `${at}/providers/${i}`,
          `names provider "${provider}", which is not configured`,
          source,
        );
      if (!COMPAT_PROVIDER_KINDS.includes(kind))
        throw new ConfigError(
          `${at}/providers/${i}`,
          `names provider "${provider}" of kind ${kind}; a compat model needs a provider of kind ${COMPAT_PROVIDER_KINDS.join(', ')}`,
          source,
        );
    });
    // Compat models are pure unless they say otherwise: a chat completion has no side effect beyond cost.
    if (model.hedgeAfterMs !== undefined && (model.effect ?? 'pure') !== 'pure')
      throw new ConfigError(`${at}/hedgeAfterMs`, 'is only allowed for models with effect "pure"', source);
    for (const problem of ruleProblems((model.contract?.rules ?? []) as OutputRule[]))
      throw new ConfigError(`${at}/contract/rules/${problem.index}`, problem.message, source);
    const schema = model.contract?.outputSchema;
    if (schema) {
      try {
        new Ajv({ strict: false }).compile(schema);
      } catch (error) {
        throw new ConfigError(
          `${at}/contract/outputSchema`,
          `is not a valid JSON Schema: ${(error as Error).message}`,
          source,
        );
      }
    }
  }
}
