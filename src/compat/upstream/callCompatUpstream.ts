// One attempt of a compat job: the normalised request sent in the provider's own wire
// format, the answer classified as every inference call's is (a refused connection is
// a definite failure, an abort or a reset unknown), and the text kept as the completion.
// No output contract is applied here: the client's request, not an operation's
// template, decided what the answer should look like. The contract is for verification.
import type { AnthropicProviderConfig, OpenAiProviderConfig } from '../../config/types.js';
import {
  envelopeFailure,
  identityHeaders,
  parseEnvelope,
  postJson,
  statusOutcome,
  withEstimatedCost,
} from '../../providers/inference/chatOutcome.js';
import { inferenceCost } from '../../providers/inference/inferenceCost.js';
import type { ProviderCall, ProviderOutcome, Usage } from '../../providers/types.js';
import { type ChatRequest, conversationText } from '../chatRequest.js';
import { anthropicCompletion, anthropicUpstreamBody } from './anthropicUpstream.js';
import { openAiCompletion, openAiUpstreamBody } from './openaiUpstream.js';

export interface CompatUpstream {
  name: string;
  config: OpenAiProviderConfig | AnthropicProviderConfig;
  url: string;
  /** Authentication and version headers of the provider. */
  headers: Record<string, string>;
  defaultMaxTokens: number;
}

export async function callCompatUpstream(
  upstream: CompatUpstream,
  call: ProviderCall,
): Promise<ProviderOutcome> {
  const { name, config } = upstream;
  const request = call.input as unknown as ChatRequest;
  // Verification sets the contract's temperature; a client's call keeps its own.
  const temperature = call.temperature ?? request.temperature;
  const openai = config.kind === 'openai-compatible';
  if (!openai && request.responseFormat) {
    return {
      kind: 'failure',
      error: {
        code: 'parameter_unsupported',
        message: `provider ${name} (kind anthropic) takes no response_format; nothing was sent`,
      },
    };
  }
  const body = openai
    ? openAiUpstreamBody(request, config.model, temperature)
    : anthropicUpstreamBody(request, config.model, upstream.defaultMaxTokens, temperature);
  const answer = await postJson(
    upstream.url,
    { ...identityHeaders(call), ...upstream.headers },
    body,
    call.signal,
  );
  if ('outcome' in answer) return withEstimatedCost(answer.outcome, config, conversationText(request));
  const envelope = parseEnvelope(answer);
  if (answer.status < 200 || answer.status >= 300) {
    const error = envelope.ok
      ? (envelope.body.error as { type?: string; message?: string } | undefined)
      : undefined;
    return statusOutcome(answer, error?.message ? `${error.type ?? 'error'}: ${error.message}` : undefined);
  }
  if (!envelope.ok) return envelopeFailure(name, answer, 'its body is not a JSON object');
  const completion = openai
    ? openAiCompletion(envelope.body, name, config.model)
    : anthropicCompletion(envelope.body, name, config.model);
  if ('invalid' in completion)
    return envelopeFailure(name, answer, completion.invalid, undefined, config.prices);
  const usage: Usage = { ...completion.usage };
  const costMicros = inferenceCost(config.prices, usage);
  return { kind: 'success', result: completion, usage, ...(costMicros !== undefined ? { costMicros } : {}) };
}
