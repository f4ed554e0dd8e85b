// What providers and inference operations need of a config beyond its shape: a model
// adapter for every inference operation, a prompt, output rules that can be applied, and
// the API keys the config names. The engine passes this check to the config loader
// (src/engine/loadConfig.ts), so a bad setting refuses to start, named by its JSON pointer.
import type { ConfigProblem } from '../config/ConfigError.js';
import type { OnejobConfig } from '../config/types.js';
import { type OutputRule, ruleProblems } from './inference/outputRules.js';

export function providerConfigProblems(config: OnejobConfig, env: NodeJS.ProcessEnv): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const problem = (path: string, message: string) => problems.push({ path, message });
  for (const [name, op] of Object.entries(config.operations)) {
    op.providers.forEach((provider, i) => {
      // Model adapters and the simulator hold answers to the output contract; an http provider would pass anything through.
      if (op.kind === 'inference.chat' && config.providers[provider]?.kind === 'http')
        problem(
          `/operations/${name}/providers/${i}`,
          `names provider "${provider}" of kind http, which cannot run inference.chat operations`,
        );
    });
    if (op.kind === 'inference.chat' && !op.prompt)
      problem(`/operations/${name}/prompt`, 'is required for inference.chat operations');
    for (const rule of ruleProblems((op.rules ?? []) as OutputRule[]))
      problem(`/operations/${name}/rules/${rule.index}`, rule.message);
  }
  for (const [name, provider] of Object.entries(config.providers)) {
    if ((provider.kind === 'openai-compatible' || provider.kind === 'anthropic') && provider.apiKeyEnv) {
      if (!env[provider.apiKeyEnv])
        problem(
          `/providers/${name}/apiKeyEnv`,
          `names environment variable ${provider.apiKeyEnv}, which is not set`,
        );
    }
  }
  return problems;
}
