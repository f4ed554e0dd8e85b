// The Anthropic Messages wire, as onejob speaks it: what @anthropic-ai/sdk sends and is
// answered with, and what an Anthropic provider is sent and answers. Written here rather
// than imported from the SDK (a development dependency only);
// test/compat/wireTypes.unit.test.ts checks them against its types at compile time.

/** A text block of a message or system prompt, as the SDK may send it instead of a string. */
export interface AnthropicTextBlockParam {
  type: 'text';
  text: string;
  /** A pricing hint, not part of the text: read past. */
  cache_control?: unknown;
}

export interface AnthropicMessageParam {
  role: 'user' | 'assistant';
  content: string | AnthropicTextBlockParam[];
}

/**
 * The Messages parameters the drop-in carries; normalizeAnthropicRequest refuses any other
 * by name (tools, images, thinking, top_k), and ignores the label `metadata`.
 */
export interface AnthropicChatRequest {
  model: string;
  messages: AnthropicMessageParam[];
  system?: string | AnthropicTextBlockParam[] | null;
  max_tokens: number;
  temperature?: number | null;
  top_p?: number | null;
  stop_sequences?: string[] | null;
  stream?: boolean | null;
}

/** The stop reasons onejob answers with. */
export type AnthropicStopReason = 'end_turn' | 'stop_sequence' | 'max_tokens' | 'refusal';

export interface AnthropicTextBlock {
  type: 'text';
  text: string;
}

export interface AnthropicUsage {
  input_tokens: number;
  output_tokens: number;
}

/** The `message` body a whole answer is (its usage and stop reason are null-free once known). */
export interface AnthropicMessage {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: AnthropicTextBlock[];
  stop_reason: AnthropicStopReason | null;
  stop_sequence: string | null;
  usage: AnthropicUsage;
}

/** The events of a streamed answer, in the order they are sent. */
export type AnthropicStreamEvent =
  | { type: 'message_start'; message: AnthropicMessage }
  | { type: 'content_block_start'; index: number; content_block: AnthropicTextBlock }
  | { type: 'content_block_delta'; index: number; delta: { type: 'text_delta'; text: string } }
  | { type: 'content_block_stop'; index: number }
  | {
      type: 'message_delta';
      delta: { stop_reason: AnthropicStopReason; stop_sequence: string | null };
      usage: AnthropicUsage;
    }
  | { type: 'message_stop' };

/** The `error` of a refusal's body; `code` is onejob's stable error code. */
export interface AnthropicError {
  type:
    | 'invalid_request_error'
    | 'authentication_error'
    | 'permission_error'
    | 'not_found_error'
    | 'request_too_large'
    | 'rate_limit_error'
    | 'overloaded_error'
    | 'api_error';
  message: string;
  code: string;
}

export interface AnthropicErrorBody {
  type: 'error';
  error: AnthropicError;
}

/** The body an Anthropic provider is sent; `stream` only for a streamed call. */
export interface AnthropicUpstreamRequest {
  model: string;
  max_tokens: number;
  system?: string;
  messages: { role: 'user' | 'assistant'; content: string }[];
  temperature?: number;
  top_p?: number;
  stop_sequences?: string[];
  stream?: true;
}

/** A provider's whole answer, as far as onejob reads it: each field is checked where it is used. */
export interface AnthropicReply {
  content?: { type?: string; text?: string }[];
  stop_reason?: string | null;
  stop_sequence?: string | null;
  usage?: { input_tokens?: number | null; output_tokens?: number };
}

/** One event of a provider's streamed answer, as far as onejob reads it. */
export interface AnthropicEventReply {
  type?: string;
  message?: { usage?: { input_tokens?: number } };
  delta?: { type?: string; text?: string; stop_reason?: string | null; stop_sequence?: string | null };
  usage?: { input_tokens?: number | null; output_tokens?: number };
  error?: { message?: unknown };
}
