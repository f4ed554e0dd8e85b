// The OpenAI Chat Completions wire, as onejob speaks it: what the openai SDK sends and is
// answered with, and what an OpenAI-compatible provider is sent and answers. Written
// here rather than imported from the openai package (a development dependency only);
// test/compat/wireTypes.unit.test.ts checks them against its types at compile time.
import type { ResponseFormat } from '../chatRequest.js';

/** A text part of a message's content, as the SDK may send it instead of a string. */
export interface OpenAiTextPart {
  type: 'text';
  text: string;
}

/** A message the drop-in takes: a system or developer prompt before the conversation, then its turns. */
export interface OpenAiRequestMessage {
  role: 'system' | 'developer' | 'user' | 'assistant';
  content: string | OpenAiTextPart[];
}

/**
 * The Chat Completions parameters the drop-in carries; normalizeOpenAiRequest refuses any
 * other by name (tools, images, several choices), and ignores the labels `user`,
 * `metadata`, `store` and `service_tier`.
 */
export interface OpenAiChatRequest {
  model: string;
  messages: OpenAiRequestMessage[];
  stream?: boolean | null;
  stream_options?: { include_usage?: boolean } | null;
  temperature?: number | null;
  top_p?: number | null;
  max_tokens?: number | null;
  max_completion_tokens?: number | null;
  stop?: string | string[] | null;
  response_format?: ResponseFormat | null;
  n?: number | null;
}

/** The finish reasons onejob answers with (a stop sequence is a `stop` in OpenAI's wire). */
export type OpenAiFinishReason = 'stop' | 'length' | 'content_filter';

export interface OpenAiUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/** The one choice of a completion. */
export interface OpenAiChoice {
  index: number;
  message: { role: 'assistant'; content: string; refusal: null };
  logprobs: null;
  finish_reason: OpenAiFinishReason;
}

/** The `chat.completion` body a whole answer is. */
export interface OpenAiChatCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: OpenAiChoice[];
  usage: OpenAiUsage;
}

/** What one chunk adds to the choice: its role first, then text. */
export interface OpenAiDelta {
  role?: 'assistant';
  content?: string;
  refusal?: null;
}

export interface OpenAiChunkChoice {
  index: number;
  delta: OpenAiDelta;
  logprobs: null;
  finish_reason: OpenAiFinishReason | null;
}

/** One `chat.completion.chunk` of a streamed answer; the last, if asked, carries only the usage. */
export interface OpenAiChunk {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: OpenAiChunkChoice[];
  usage?: OpenAiUsage;
}

/** The `error` of a refusal's body; `code` is onejob's stable error code. */
export interface OpenAiError {
  message: string;
  type:
    | 'invalid_request_error'
    | 'authentication_error'
    | 'permission_error'
    | 'rate_limit_error'
    | 'server_error';
  param: string | null;
  code: string;
}

export interface OpenAiErrorBody {
  error: OpenAiError;
}

/** A message sent to a provider: the system prompt first, then the conversation. */
export interface OpenAiMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** The body an OpenAI-compatible provider is sent; `stream` fields only for a streamed call. */
export interface OpenAiUpstreamRequest {
  model: string;
  messages: OpenAiMessage[];
  temperature?: number;
  top_p?: number;
  max_tokens?: number;
  stop?: string[];
  response_format?: ResponseFormat;
  stream?: true;
  stream_options?: { include_usage: true };
}

/** A provider's whole answer, as far as onejob reads it: each field is checked where it is used. */
export interface OpenAiReply {
  choices?: {
    message?: { content?: string | null; refusal?: string | null };
    finish_reason?: string | null;
  }[];
  usage?: { prompt_tokens?: number; completion_tokens?: number } | null;
}

/** One chunk of a provider's streamed answer, as far as onejob reads it, or the error it sent instead. */
export interface OpenAiChunkReply {
  choices?: {
    delta?: { content?: string | null; refusal?: string | null };
    finish_reason?: string | null;
  }[];
  usage?: { prompt_tokens?: number; completion_tokens?: number } | null;
  error?: { message?: unknown };
}
