// OpenAI's wire format for what a compat job holds: the chat.completion body, its
// chat.completion.chunk stream, and the `{"error": {...}}` body of a refusal.
import type { ChatCompletion } from '../chatRequest.js';
import type { StreamParts, WireAnswer, WireCall, WireError } from '../wire.js';
import { OPENAI_FINISH } from './openaiFinish.js';
import type {
  OpenAiChatCompletion,
  OpenAiChunk,
  OpenAiChunkChoice,
  OpenAiDelta,
  OpenAiError,
  OpenAiErrorBody,
  OpenAiFinishReason,
  OpenAiUsage,
} from './openaiTypes.js';

const idOf = (call: WireCall) => `chatcmpl-${call.jobId}`;
const createdOf = (call: WireCall) => Math.floor(Date.parse(call.createdAt) / 1000);

const usageOf = (c: ChatCompletion): OpenAiUsage => ({
  prompt_tokens: c.usage.inputTokens,
  completion_tokens: c.usage.outputTokens,
  total_tokens: c.usage.inputTokens + c.usage.outputTokens,
});

function completionBody(call: WireCall, c: ChatCompletion): OpenAiChatCompletion {
  return {
    id: idOf(call),
    object: 'chat.completion',
    created: createdOf(call),
    model: call.model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: c.text, refusal: null },
        logprobs: null,
        finish_reason: OPENAI_FINISH.toWire(c.finishReason),
      },
    ],
    usage: usageOf(c),
  };
}

function chunk(call: WireCall, choices: OpenAiChunkChoice[], extra: { usage?: OpenAiUsage } = {}): string {
  const body: OpenAiChunk = {
    id: idOf(call),
    object: 'chat.completion.chunk',
    created: createdOf(call),
    model: call.model,
    choices,
    ...extra,
  };
  return `data: ${JSON.stringify(body)}\n\n`;
}

const delta = (d: OpenAiDelta, finish: OpenAiFinishReason | null = null): OpenAiChunkChoice => ({
  index: 0,
  delta: d,
  logprobs: null,
  finish_reason: finish,
});

/** Role first, the text by pieces, the finish reason, the usage if asked, then `[DONE]`. */
const stream: StreamParts = {
  head: (call) => [chunk(call, [delta({ role: 'assistant', content: '', refusal: null })])],
  piece: (call, text) => chunk(call, [delta({ content: text })]),
  tail: (call, c) => [
    chunk(call, [delta({}, OPENAI_FINISH.toWire(c.finishReason))]),
    ...(call.includeUsage ? [chunk(call, [], { usage: usageOf(c) })] : []),
    'data: [DONE]\n\n',
  ],
  error: (e) => `data: ${JSON.stringify(errorBody(e))}\n\n`,
};

function errorType(status: number): OpenAiError['type'] {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

function errorBody(e: WireError): OpenAiErrorBody {
  return { error: { message: e.message, type: errorType(e.status), param: e.param ?? null, code: e.code } };
}

export const openAiAnswer = { completionBody, stream, errorBody } satisfies WireAnswer;
