// The normalised request to an OpenAI-compatible provider's Chat Completions body, and
// its answer back to a completion.
import type { ChatCompletion, ChatRequest, FinishReason } from '../chatRequest.js';

export function openAiUpstreamBody(
  request: ChatRequest,
  model: string,
  temperature: number | undefined,
): Record<string, unknown> {
  return {
    model,
    messages: [
      ...(request.system !== undefined ? [{ role: 'system', content: request.system }] : []),
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

interface WireCompletion {
  choices?: { message?: { content?: string | null; refusal?: string | null }; finish_reason?: string }[];
  usage?: { prompt_tokens?: number; completion_tokens?: number };
}

const FINISH: Record<string, FinishReason> = {
  stop: 'stop',
  length: 'length',
  content_filter: 'content_filter',
};

/** The completion an answer holds, or why it holds none. */
export function openAiCompletion(
  body: Record<string, unknown>,
  provider: string,
  model: string,
): ChatCompletion | { invalid: string } {
  const wire = body as WireCompletion;
  const choice = wire.choices?.[0];
  const refusal = choice?.message?.refusal;
  const text = refusal || choice?.message?.content;
  if (typeof text !== 'string') return { invalid: 'it holds no choices[0].message.content' };
  return {
    text,
    finishReason: refusal ? 'content_filter' : (FINISH[choice?.finish_reason ?? 'stop'] ?? 'stop'),
    usage: {
      inputTokens: wire.usage?.prompt_tokens ?? 0,
      outputTokens: wire.usage?.completion_tokens ?? 0,
    },
    provider,
    model,
  };
}
