// OpenAI's wire format for what a compat job holds: the chat.completion body, its
// chat.completion.chunk stream, and the `{"error": {...}}` body of a refusal.
import type { ChatCompletion, FinishReason } from './chatRequest.js';
import { streamPieces } from './streamPieces.js';
import type { WireAnswer, WireCall, WireError } from './wire.js';

const FINISH: Record<FinishReason, string> = {
  stop: 'stop',
  stop_sequence: 'stop',
  length: 'length',
  content_filter: 'content_filter',
};

const idOf = (call: WireCall) => `chatcmpl-${call.jobId}`;
const createdOf = (call: WireCall) => Math.floor(Date.parse(call.createdAt) / 1000);

const usageOf = (c: ChatCompletion) => ({
  prompt_tokens: c.usage.inputTokens,
  completion_tokens: c.usage.outputTokens,
  total_tokens: c.usage.inputTokens + c.usage.outputTokens,
});

function completionBody(call: WireCall, c: ChatCompletion): unknown {
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
        finish_reason: FINISH[c.finishReason],
      },
    ],
    usage: usageOf(c),
  };
}

/** The chunks of a stream, then `[DONE]`: role first, the text by pieces, the finish reason, the usage if asked. */
function streamEvents(call: WireCall, c: ChatCompletion): string[] {
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    `data: ${JSON.stringify({
      id: idOf(call),
      object: 'chat.completion.chunk',
      created: createdOf(call),
      model: call.model,
      choices,
      ...extra,
    })}\n\n`;
  const delta = (d: Record<string, unknown>, finish: string | null = null) => ({
    index: 0,
    delta: d,
    logprobs: null,
    finish_reason: finish,
  });
  return [
    chunk([delta({ role: 'assistant', content: '', refusal: null })]),
    ...streamPieces(c.text).map((piece) => chunk([delta({ content: piece })])),
    chunk([delta({}, FINISH[c.finishReason])]),
    ...(call.includeUsage ? [chunk([], { usage: usageOf(c) })] : []),
    'data: [DONE]\n\n',
  ];
}

function errorType(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

function errorBody(e: WireError): unknown {
  return { error: { message: e.message, type: errorType(e.status), param: e.param ?? null, code: e.code } };
}

export const openAiWire: WireAnswer = { completionBody, streamEvents, errorBody };
