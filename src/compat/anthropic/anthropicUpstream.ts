// The normalised request to an Anthropic provider's Messages body, and its answer back
// to a completion, whole or event by event.
import type { ChatCompletion, ChatRequest } from '../chatRequest.js';
import { parseEventData } from '../readSse.js';
import type { UpstreamWire } from '../wire.js';
import { ANTHROPIC_FINISH } from './anthropicFinish.js';
import type { AnthropicEventReply, AnthropicReply, AnthropicUpstreamRequest } from './anthropicTypes.js';

function upstreamBody(
  request: ChatRequest,
  model: string,
  { temperature, defaultMaxTokens }: { temperature: number | undefined; defaultMaxTokens: number },
): AnthropicUpstreamRequest {
  return {
    model,
    // Anthropic requires a limit; an OpenAI client that set none gets the provider's configured one.
    max_tokens: request.maxTokens ?? defaultMaxTokens,
    ...(request.system !== undefined ? { system: request.system } : {}),
    messages: request.messages,
    ...(temperature !== undefined ? { temperature } : {}),
    ...(request.topP !== undefined ? { top_p: request.topP } : {}),
    ...(request.stop ? { stop_sequences: request.stop } : {}),
  };
}

function completion(
  body: Record<string, unknown>,
  provider: string,
  model: string,
): ChatCompletion | { invalid: string } {
  const wire = body as AnthropicReply;
  const texts = (wire.content ?? []).filter((b) => b.type === 'text' && typeof b.text === 'string');
  if (texts.length === 0) return { invalid: 'its content holds no text block' };
  const finishReason = ANTHROPIC_FINISH.fromWire(wire.stop_reason ?? 'end_turn');
  return {
    text: texts.map((b) => b.text).join(''),
    finishReason,
    ...(finishReason === 'stop_sequence' ? { stopSequence: wire.stop_sequence ?? null } : {}),
    usage: {
      inputTokens: wire.usage?.input_tokens ?? 0,
      outputTokens: wire.usage?.output_tokens ?? 0,
    },
    provider,
    model,
  };
}

/** message_start ... message_stop: the text deltas, then the stop reason and the usage. */
const streamEvent: UpstreamWire['streamEvent'] = (event, answer) => {
  const data = parseEventData(event.data) as AnthropicEventReply | undefined;
  if (!data) return undefined;
  const type = event.event ?? data.type;
  if (type === 'error') {
    answer.error = String(data.error?.message ?? 'error');
    return undefined;
  }
  if (type === 'message_start') answer.inputTokens = data.message?.usage?.input_tokens ?? 0;
  if (type === 'content_block_delta' && data.delta?.type === 'text_delta') return data.delta.text;
  if (type === 'message_delta') {
    const reason = data.delta?.stop_reason;
    if (reason) answer.finishReason = ANTHROPIC_FINISH.fromWire(reason);
    if (answer.finishReason === 'stop_sequence') answer.stopSequence = data.delta?.stop_sequence ?? null;
    if (typeof data.usage?.input_tokens === 'number') answer.inputTokens = data.usage.input_tokens;
    answer.outputTokens = data.usage?.output_tokens ?? answer.outputTokens;
  }
  if (type === 'message_stop') answer.complete = true;
  return undefined;
};

const streamFields: Pick<AnthropicUpstreamRequest, 'stream'> = { stream: true };

export const anthropicUpstream = {
  cannotCarry: (request) =>
    request.responseFormat ? 'takes no response_format; nothing was sent' : undefined,
  upstreamBody,
  streamFields,
  completion,
  streamEvent,
} satisfies UpstreamWire;
