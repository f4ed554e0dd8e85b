// The normalised request to an OpenAI-compatible provider's Chat Completions body, and
// its answer back to a completion, whole or chunk by chunk.
import type { ChatCompletion, ChatRequest } from '../chatRequest.js';
import { parseEventData } from '../readSse.js';
import type { UpstreamWire } from '../wire.js';
import { OPENAI_FINISH } from './openaiFinish.js';
import type { OpenAiChunkReply, OpenAiReply, OpenAiUpstreamRequest } from './openaiTypes.js';

function upstreamBody(
  request: ChatRequest,
  model: string,
  { temperature }: { temperature: number | undefined },
): OpenAiUpstreamRequest {
  return {
    model,
    messages: [
      ...(request.system !== undefined ? [{ role: 'system' as const, content: request.system }] : []),
      ...request.messages,
    ],
    ...(temperature !== undefined ? { temperature } : {}),
    ...(request.topP !== undefined ? { top_p: request.topP } : {}),
    // `max_tokens` rather than `max_completion_tokens`: every OpenAI-compatible server knows it.
    ...(request.maxTokens !== undefined ? { max_tokens: request.maxTokens } : {}),
    ...(request.stop ? { stop: request.stop } : {}),
    ...(request.responseFormat ? { response_format: request.responseFormat } : {}),
  };
}

function completion(
  body: Record<string, unknown>,
  provider: string,
  model: string,
): ChatCompletion | { invalid: string } {
  const wire = body as OpenAiReply;
  const choice = wire.choices?.[0];
  const refusal = choice?.message?.refusal;
  const text = refusal || choice?.message?.content;
  if (typeof text !== 'string') return { invalid: 'it holds no choices[0].message.content' };
  return {
    text,
    finishReason: refusal ? 'content_filter' : OPENAI_FINISH.fromWire(choice?.finish_reason),
    usage: {
      inputTokens: wire.usage?.prompt_tokens ?? 0,
      outputTokens: wire.usage?.completion_tokens ?? 0,
    },
    provider,
    model,
  };
}

/** A chat.completion.chunk: its finish reason and usage, and its text (a refusal's text too); `[DONE]` ends. */
const streamEvent: UpstreamWire['streamEvent'] = (event, answer) => {
  if (event.data === '[DONE]') {
    answer.complete = true;
    return undefined;
  }
  const chunk = parseEventData(event.data) as OpenAiChunkReply | undefined;
  if (!chunk) return undefined;
  if (chunk.error) {
    answer.error = String(chunk.error.message ?? 'error');
    return undefined;
  }
  const choice = chunk.choices?.[0];
  if (choice?.finish_reason) answer.finishReason = OPENAI_FINISH.fromWire(choice.finish_reason);
  if (chunk.usage) {
    answer.inputTokens = chunk.usage.prompt_tokens ?? 0;
    answer.outputTokens = chunk.usage.completion_tokens ?? 0;
  }
  if (choice?.delta?.refusal) answer.finishReason = 'content_filter';
  return choice?.delta?.refusal ?? choice?.delta?.content;
};

// The usage comes in a last chunk only when asked for.
const streamFields: Pick<OpenAiUpstreamRequest, 'stream' | 'stream_options'> = {
  stream: true,
  stream_options: { include_usage: true },
};

export const openAiUpstream = {
  cannotCarry: () => undefined,
  upstreamBody,
  streamFields,
  completion,
  streamEvent,
} satisfies UpstreamWire;
