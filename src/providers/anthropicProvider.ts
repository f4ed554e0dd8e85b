// Anthropic messages API (`POST {baseUrl}/v1/messages`). One HTTP request per attempt, no
// retries: the attempt engine owns retries, hedging and timeouts.

import { anthropicWire } from '../compat/anthropic/anthropicWire.js';
import { COMPAT_KIND } from '../compat/compatModels.js';
import type { AnthropicProviderConfig } from '../config/types.js';
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

export const ANTHROPIC_VERSION = '2023-06-01';
export const DEFAULT_MAX_TOKENS = 1024;

interface Message {
  content?: { type?: string; text?: string }[];
  stop_reason?: string;
  usage?: { input_tokens?: number; output_tokens?: number };
  error?: { type?: string; message?: string };
}

export function createAnthropicProvider(
  name: string,
  config: AnthropicProviderConfig,
  env: NodeJS.ProcessEnv = process.env,
): Provider {
  const url = `${config.baseUrl.replace(/\/+$/, '')}/v1/messages`;
  const apiKey = config.apiKeyEnv ? env[config.apiKeyEnv] : undefined;
  return {
    name,
    kind: 'anthropic',
    idempotent: false,
    async call(call: ProviderCall): Promise<ProviderOutcome> {
      // A compat job's input is a whole chat request, sent as the client wrote it (docs/compat.md).
      if (call.operation.kind === COMPAT_KIND) {
        const headers = {
          'anthropic-version': ANTHROPIC_VERSION,
          ...(apiKey ? { 'x-api-key': apiKey } : {}),
        };
        const defaultMaxTokens = config.maxTokens ?? DEFAULT_MAX_TOKENS;
        return callCompatUpstream(
          { name, config, wire: anthropicWire, url, headers, defaultMaxTokens },
          call,
        );
      }
      const prepared = prepareChat(call, name);
      if (!prepared.ok) return prepared.outcome;
      const { prompt, config: op } = prepared;
      const temperature = temperatureOf(call, op);
      const body: Record<string, unknown> = {
        model: config.model,
        max_tokens: config.maxTokens ?? DEFAULT_MAX_TOKENS,
        ...(prompt.system !== undefined ? { system: prompt.system } : {}),
        messages: [{ role: 'user', content: prompt.user }],
        ...(temperature !== undefined ? { temperature } : {}),
      };
      const headers = {
        ...identityHeaders(call),
        'anthropic-version': ANTHROPIC_VERSION,
        ...(apiKey ? { 'x-api-key': apiKey } : {}),
      };
      const answer = await postJson(url, headers, body, call.signal);
      if ('outcome' in answer) return withEstimatedCost(answer.outcome, config, prompt);
      const envelope = parseEnvelope(answer);
      const message = (envelope.ok ? envelope.body : {}) as Message;
      if (answer.status < 200 || answer.status >= 300) {
        return statusOutcome(
          answer,
          message.error ? `${message.error.type ?? 'error'}: ${message.error.message ?? ''}` : undefined,
        );
      }
      if (!envelope.ok) return envelopeFailure(name, answer, 'its body is not a JSON object');
      const usage: Usage | undefined = message.usage
        ? { inputTokens: message.usage.input_tokens ?? 0, outputTokens: message.usage.output_tokens ?? 0 }
        : undefined;
      const texts = (message.content ?? []).filter((b) => b.type === 'text' && typeof b.text === 'string');
      if (texts.length === 0)
        return envelopeFailure(name, answer, 'its content holds no text block', usage, config.prices);
      return answerOutcome(op, texts.map((b) => b.text).join(''), usage, config.prices);
    },
  };
}
