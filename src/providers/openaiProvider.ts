// OpenAI-compatible chat completions (`POST {baseUrl}/chat/completions`). One HTTP request
// per attempt, no retries: the attempt engine owns retries, hedging and timeouts.

import { COMPAT_KIND } from '../compat/compatModels.js';
import { openAiWire } from '../compat/openai/openaiWire.js';
import type { OpenAiProviderConfig } from '../config/types.js';
import {
  answerOutcome,
  envelopeFailure,
  identityHeaders,
  parseEnvelope,
  postJson,
  prepareChat,
  statusOutcome,
  temperatureOf,
  withEstimatedCost,
} from './inference/chatOutcome.js';
import type { Provider, ProviderCall, ProviderOutcome, Usage } from './types.js';
import { callCompatUpstream } from './upstream/callCompatUpstream.js';

// Wherever inference adapters exist, a missing prompt variable is an input error at job creation.

interface ChatCompletion {
  choices?: { message?: { content?: string | null; refusal?: string | null }; finish_reason?: string }[];
  usage?: { prompt_tokens?: number; completion_tokens?: number };
  error?: { message?: string };
}

/** `response_format.json_schema.name` allows only letters, digits, `_` and `-`, up to 64. */
function schemaName(operation: string): string {
  return operation.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64) || 'output';
}

export function createOpenAiProvider(
  name: string,
  config: OpenAiProviderConfig,
  env: NodeJS.ProcessEnv = process.env,
): Provider {
  const url = `${config.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  const apiKey = config.apiKeyEnv ? env[config.apiKeyEnv] : undefined;
  return {
    name,
    kind: 'openai-compatible',
    // Chat completions do not dedupe on Idempotency-Key; a resend is a second generation.
    idempotent: false,
    async call(call: ProviderCall): Promise<ProviderOutcome> {
      // A compat job's input is a whole chat request, sent as the client wrote it (docs/compat.md).
      if (call.operation.kind === COMPAT_KIND) {
        const headers: Record<string, string> = apiKey ? { authorization: `Bearer ${apiKey}` } : {};
        return callCompatUpstream(
          { name, config, wire: openAiWire, url, headers, defaultMaxTokens: 0 },
          call,
        );
      }
      const prepared = prepareChat(call, name);
      if (!prepared.ok) return prepared.outcome;
      const { prompt, config: op } = prepared;
      const temperature = temperatureOf(call, op);
      const body: Record<string, unknown> = {
        model: config.model,
        messages: [
          ...(prompt.system !== undefined ? [{ role: 'system', content: prompt.system }] : []),
          { role: 'user', content: prompt.user },
        ],
        ...(temperature !== undefined ? { temperature } : {}),
        ...(op.outputSchema
          ? {
              response_format: {
                type: 'json_schema',
                json_schema: { name: schemaName(call.operation.name), schema: op.outputSchema },
              },
            }
          : { response_format: { type: 'json_object' } }),
      };
      const headers = { ...identityHeaders(call), ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) };
      const answer = await postJson(url, headers, body, call.signal);
      if ('outcome' in answer) return withEstimatedCost(answer.outcome, config, prompt);
      const envelope = parseEnvelope(answer);
      const completion = (envelope.ok ? envelope.body : {}) as ChatCompletion;
      if (answer.status < 200 || answer.status >= 300)
        return statusOutcome(answer, completion.error?.message);
      if (!envelope.ok) return envelopeFailure(name, answer, 'its body is not a JSON object');
      const usage: Usage | undefined = completion.usage
        ? {
            inputTokens: completion.usage.prompt_tokens ?? 0,
            outputTokens: completion.usage.completion_tokens ?? 0,
          }
        : undefined;
      const choice = completion.choices?.[0];
      if (choice?.message?.refusal) {
        return answerOutcome(op, choice.message.refusal, usage, config.prices);
      }
      const content = choice?.message?.content;
      if (typeof content !== 'string')
        return envelopeFailure(name, answer, 'it holds no choices[0].message.content', usage, config.prices);
      return answerOutcome(op, content, usage, config.prices);
    },
  };
}
