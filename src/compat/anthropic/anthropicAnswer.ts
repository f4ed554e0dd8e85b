// Anthropic's wire format for what a compat job holds: the message body, its event
// stream (message_start ... message_stop), and the `{"type": "error"}` body of a refusal.
import type { ChatCompletion } from '../chatRequest.js';
import type { StreamParts, WireAnswer, WireCall, WireError } from '../wire.js';
import { ANTHROPIC_FINISH } from './anthropicFinish.js';
import type {
  AnthropicError,
  AnthropicErrorBody,
  AnthropicMessage,
  AnthropicStreamEvent,
  AnthropicUsage,
} from './anthropicTypes.js';

const idOf = (call: WireCall) => `msg_${call.jobId.replace(/-/g, '')}`;

const usageOf = (c: ChatCompletion): AnthropicUsage => ({
  input_tokens: c.usage.inputTokens,
  output_tokens: c.usage.outputTokens,
});

function completionBody(call: WireCall, c: ChatCompletion): AnthropicMessage {
  return {
    id: idOf(call),
    type: 'message',
    role: 'assistant',
    model: call.model,
    content: [{ type: 'text', text: c.text }],
    stop_reason: ANTHROPIC_FINISH.toWire(c.finishReason),
    stop_sequence: c.stopSequence ?? null,
    usage: usageOf(c),
  };
}

/** One event, named on its `event:` line and again in its data's `type`. */
const event = (data: AnthropicStreamEvent) => `event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`;

/**
 * The usage is known once the completion is: `message_start` says 0 tokens, and
 * `message_delta` carries both counts, which the SDK's accumulated message takes.
 */
const stream: StreamParts = {
  head: (call) => [
    event({
      type: 'message_start',
      message: {
        id: idOf(call),
        type: 'message',
        role: 'assistant',
        model: call.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 0, output_tokens: 0 },
      },
    }),
    event({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
  ],
  piece: (_call, text) =>
    event({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } }),
  tail: (_call, c) => [
    event({ type: 'content_block_stop', index: 0 }),
    event({
      type: 'message_delta',
      delta: { stop_reason: ANTHROPIC_FINISH.toWire(c.finishReason), stop_sequence: c.stopSequence ?? null },
      usage: usageOf(c),
    }),
    event({ type: 'message_stop' }),
  ],
  error: (e) => `event: error\ndata: ${JSON.stringify(errorBody(e))}\n\n`,
};

function errorType(status: number): AnthropicError['type'] {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 413) return 'request_too_large';
  if (status === 429) return 'rate_limit_error';
  if (status === 503) return 'overloaded_error';
  if (status >= 500) return 'api_error';
  return 'invalid_request_error';
}

function errorBody(e: WireError): AnthropicErrorBody {
  return { type: 'error', error: { type: errorType(e.status), message: e.message, code: e.code } };
}

export const anthropicAnswer = { completionBody, stream, errorBody } satisfies WireAnswer;
