// What webhook publishers need of a config beyond its shape: a secret that is set and
// usable, and a URL the relay may post to. The engine passes this check to the config
// loader (src/engine/loadConfig.ts), so a bad publisher refuses to start.
import type { ConfigProblem } from '../config/ConfigError.js';
import type { OnejobConfig } from '../config/types.js';
import { webhookSecretProblem, webhookUrlProblem } from './publishers/webhookPublisher.js';

export function publisherConfigProblems(config: OnejobConfig, env: NodeJS.ProcessEnv): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const problem = (path: string, message: string) => problems.push({ path, message });
  (config.outbox?.publishers ?? []).forEach((publisher, i) => {
    if (publisher.kind !== 'webhook') return;
    const secret = env[publisher.secretEnv];
    if (!secret)
      problem(
        `/outbox/publishers/${i}/secretEnv`,
        `names environment variable ${publisher.secretEnv}, which is not set`,
      );
    const badUrl = webhookUrlProblem(publisher.url);
    if (badUrl) problem(`/outbox/publishers/${i}/url`, badUrl);
    const weak = secret && webhookSecretProblem(secret);
    if (weak) problem(`/outbox/publishers/${i}/secretEnv`, `${publisher.secretEnv} ${weak}`);
  });
  return problems;
}
