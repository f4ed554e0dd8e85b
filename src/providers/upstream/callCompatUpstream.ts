// One attempt of a compat job: the normalised request sent in the provider's own wire
// format (the vendor's module in src/compat/ writes the body and reads the answer), the
// answer classified as every inference call's is (a refused connection is
// a definite failure, an abort or a reset unknown), and the text kept as the completion.
// No output contract is applied here: the client's request, not an operation's
// template, decided what the answer should look like. The contract is for verification.

import { type ChatCompletion, type ChatRequest, conversationText } from '../../compat/chatRequest.js';
import { readSse } from '../../compat/readSse.js';
import type { UpstreamWire } from '../../compat/wire.js';
import type { AnthropicProviderConfig, OpenAiProviderConfig } from '../../config/types.js';
import {
  envelopeFailure,
  fetchFailure,
  type HttpAnswer,
  identityHeaders,
  parseEnvelope,
  postJson,
  statusOutcome,
  withEstimatedCost,
} from '../inference/chatOutcome.js';
import { inferenceCost } from '../inference/inferenceCost.js';
import type { ProviderCall, ProviderOutcome, Usage } from '../types.js';
import { streamedCompletion } from './streamedCompletion.js';

export interface CompatUpstream {
  name: string;
  config: OpenAiProviderConfig | AnthropicProviderConfig;
  /** The vendor's wire the provider speaks. */
  wire: UpstreamWire;
  url: string;
  /** Authentication and version headers of the provider. */
  headers: Record<string, string>;
  defaultMaxTokens: number;
}

export async function callCompatUpstream(
  upstream: CompatUpstream,
  call: ProviderCall,
): Promise<ProviderOutcome> {
  const { name, config, wire } = upstream;
  const request = call.input as unknown as ChatRequest;
  const refused = wire.cannotCarry(request);
  if (refused)
    return {
      kind: 'failure',
      error: { code: 'parameter_unsupported', message: `provider ${name} (kind ${config.kind}) ${refused}` },
    };
  const body = wire.upstreamBody(request, config.model, {
    // Verification sets the contract's temperature; a client's call keeps its own.
    temperature: call.temperature ?? request.temperature,
    defaultMaxTokens: upstream.defaultMaxTokens,
  });
  const headers = { ...identityHeaders(call), ...upstream.headers };
  if (call.onText) return streamUpstream(upstream, call, body, headers, call.onText);
  const answer = await postJson(upstream.url, headers, body, call.signal);
  if ('outcome' in answer) return withEstimatedCost(answer.outcome, config, conversationText(request));
  return answerOutcome(upstream, answer);
}

/** A whole (not streamed) answer: a refusal by its status, or the completion its body holds. */
function answerOutcome(upstream: CompatUpstream, answer: HttpAnswer): ProviderOutcome {
  const { name, config } = upstream;
  const envelope = parseEnvelope(answer);
  if (answer.status < 200 || answer.status >= 300) {
    const error = envelope.ok
      ? (envelope.body.error as { type?: string; message?: string } | undefined)
      : undefined;
    return statusOutcome(answer, error?.message ? `${error.type ?? 'error'}: ${error.message}` : undefined);
  }
  if (!envelope.ok) return envelopeFailure(name, answer, 'its body is not a JSON object');
  const completion = upstream.wire.completion(envelope.body, name, config.model);
  if ('invalid' in completion)
    return envelopeFailure(name, answer, completion.invalid, undefined, config.prices);
  return success(upstream, completion);
}

function withCost(upstream: CompatUpstream, usage: Usage): { usage: Usage; costMicros?: number } {
  const costMicros = inferenceCost(upstream.config.prices, usage);
  return { usage, ...(costMicros !== undefined ? { costMicros } : {}) };
}

function success(upstream: CompatUpstream, completion: ChatCompletion): ProviderOutcome {
  return { kind: 'success', result: completion, ...withCost(upstream, { ...completion.usage }) };
}

/**
 * The streamed call: `stream: true` upstream, each text delta handed to `onText` as it
 * arrives. A provider that answers with a whole body instead (no `text/event-stream`)
 * is read as a whole answer. A stream cut short is unknown, priced at what it used.
 */
async function streamUpstream(
  upstream: CompatUpstream,
  call: ProviderCall,
  body: object,
  headers: Record<string, string>,
  onText: (delta: string) => Promise<boolean>,
): Promise<ProviderOutcome> {
  const { name, config } = upstream;
  const request = call.input as unknown as ChatRequest;
  const estimate = (outcome: ProviderOutcome) =>
    withEstimatedCost(outcome, config, conversationText(request));
  let response: Response;
  try {
    response = await fetch(upstream.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ ...body, ...upstream.wire.streamFields }),
      signal: call.signal,
    });
  } catch (error) {
    return estimate(fetchFailure(upstream.url, error, call.signal));
  }
  try {
    const type = response.headers.get('content-type') ?? '';
    if (!response.ok || !type.startsWith('text/event-stream') || !response.body) {
      const text = await response.text();
      return answerOutcome(upstream, { status: response.status, headers: response.headers, text });
    }
    const answer = await streamedCompletion(upstream.wire, readSse(response.body), onText);
    if (call.signal.aborted) return estimate(fetchFailure(upstream.url, call.signal.reason, call.signal));
    const usage: Usage = { inputTokens: answer.inputTokens, outputTokens: answer.outputTokens };
    if (!answer.complete) {
      const why = answer.error
        ? `the provider ended the stream with an error: ${answer.error}`
        : 'the stream ended before its last event';
      return {
        kind: 'unknown',
        error: { code: 'stream_incomplete', message: `${name}: ${why}` },
        ...withCost(upstream, usage),
      };
    }
    return success(upstream, {
      text: answer.text,
      finishReason: answer.finishReason,
      ...(answer.stopSequence !== undefined ? { stopSequence: answer.stopSequence } : {}),
      usage: { inputTokens: answer.inputTokens, outputTokens: answer.outputTokens },
      provider: name,
      model: config.model,
    });
  } catch (error) {
    return estimate(fetchFailure(upstream.url, error, call.signal));
  }
}
