// The normalised request to an Anthropic provider's Messages body, and its answer back
// to a completion.
import type { ChatCompletion, ChatRequest, FinishReason } from '../chatRequest.js';

export function anthropicUpstreamBody(
  request: ChatRequest,
  model: string,
  defaultMaxTokens: number,
  temperature: number | undefined,
): Record<string, unknown> {
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

interface WireMessage {
  content?: { type?: string; text?: string }[];
  stop_reason?: string | null;
  stop_sequence?: string | null;
  usage?: { input_tokens?: number; output_tokens?: number };
}

const FINISH: Record<string, FinishReason> = {
  end_turn: 'stop',
  max_tokens: 'length',
  stop_sequence: 'stop_sequence',
  refusal: 'content_filter',
};

/** The completion an answer holds, or why it holds none. */
export function anthropicCompletion(
  body: Record<string, unknown>,
  provider: string,
  model: string,
): ChatCompletion | { invalid: string } {
  const wire = body as WireMessage;
  const texts = (wire.content ?? []).filter((b) => b.type === 'text' && typeof b.text === 'string');
  if (texts.length === 0) return { invalid: 'its content holds no text block' };
  const finishReason = FINISH[wire.stop_reason ?? 'end_turn'] ?? 'stop';
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
