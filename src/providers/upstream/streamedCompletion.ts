// A streamed upstream answer, read event by event into a completion: each text delta is
// handed on as it arrives (ProviderCall.onText), and the events that end the stream
// carry the finish reason and the usage. A stream that stops before its last event is
// not an answer: the caller classifies it as unknown.
import type { FinishReason } from '../../compat/chatRequest.js';
import type { SseEvent } from '../../compat/readSse.js';

export interface StreamedAnswer {
  text: string;
  finishReason: FinishReason;
  stopSequence?: string | null;
  inputTokens: number;
  outputTokens: number;
  /** The stream's own last event came: the answer is whole. */
  complete: boolean;
  /** The provider sent an error event instead of finishing. */
  error?: string;
}

const OPENAI_FINISH: Record<string, FinishReason> = {
  stop: 'stop',
  length: 'length',
  content_filter: 'content_filter',
};
const ANTHROPIC_FINISH: Record<string, FinishReason> = {
  end_turn: 'stop',
  max_tokens: 'length',
  stop_sequence: 'stop_sequence',
  refusal: 'content_filter',
};

// biome-ignore lint/suspicious/noExplicitAny: a provider event is read field by field, each checked where it is used.
type Json = Record<string, any>;

function parse(data: string): Json | undefined {
  try {
    const value = JSON.parse(data) as unknown;
    return typeof value === 'object' && value !== null ? (value as Json) : undefined;
  } catch {
    return undefined;
  }
}

/** Reads the events; `onText` false stops reading (the call was outvoted and is being aborted). */
export async function streamedCompletion(
  wire: 'openai' | 'anthropic',
  events: AsyncIterable<SseEvent>,
  onText: (delta: string) => Promise<boolean>,
): Promise<StreamedAnswer> {
  const answer: StreamedAnswer = {
    text: '',
    finishReason: 'stop',
    inputTokens: 0,
    outputTokens: 0,
    complete: false,
  };
  const take = async (delta: unknown): Promise<boolean> => {
    if (typeof delta !== 'string' || delta.length === 0) return true;
    answer.text += delta;
    return onText(delta);
  };
  for await (const event of events) {
    if (wire === 'openai') {
      if (event.data === '[DONE]') {
        answer.complete = true;
        break;
      }
      const chunk = parse(event.data);
      if (!chunk) continue;
      if (chunk.error) {
        answer.error = String(chunk.error.message ?? 'error');
        break;
      }
      const choice = chunk.choices?.[0];
      if (choice?.finish_reason) answer.finishReason = OPENAI_FINISH[choice.finish_reason] ?? 'stop';
      if (chunk.usage) {
        answer.inputTokens = chunk.usage.prompt_tokens ?? 0;
        answer.outputTokens = chunk.usage.completion_tokens ?? 0;
      }
      if (!(await take(choice?.delta?.refusal ?? choice?.delta?.content))) break;
      if (choice?.delta?.refusal) answer.finishReason = 'content_filter';
    } else {
      const data = parse(event.data);
      if (!data) continue;
      const type = event.event ?? data.type;
      if (type === 'error') {
        answer.error = String(data.error?.message ?? 'error');
        break;
      }
      if (type === 'message_start') answer.inputTokens = data.message?.usage?.input_tokens ?? 0;
      if (type === 'content_block_delta' && data.delta?.type === 'text_delta') {
        if (!(await take(data.delta.text))) break;
      }
      if (type === 'message_delta') {
        const reason = data.delta?.stop_reason;
        if (reason) answer.finishReason = ANTHROPIC_FINISH[reason] ?? 'stop';
        if (answer.finishReason === 'stop_sequence') answer.stopSequence = data.delta?.stop_sequence ?? null;
        if (typeof data.usage?.input_tokens === 'number') answer.inputTokens = data.usage.input_tokens;
        answer.outputTokens = data.usage?.output_tokens ?? answer.outputTokens;
      }
      if (type === 'message_stop') {
        answer.complete = true;
        break;
      }
    }
  }
  return answer;
}
