// The provider-neutral shapes behind the SDK drop-in: the normalised request (a compat
// job's input, and so its identity) and the completion (the job's result). Each wire
// format is translated into and out of these, never into each other.

export interface ChatMessage {
  role: 'user' | 'assistant';
  content: string;
}

/** OpenAI's `response_format`, kept as the client sent it; only OpenAI-compatible providers take it. */
export type ResponseFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | { type: 'json_schema'; json_schema: Record<string, unknown> };

/** A compat job's input. Keys absent when the client did not set them, so equal requests fingerprint alike. */
export interface ChatRequest {
  system?: string;
  messages: ChatMessage[];
  maxTokens?: number;
  temperature?: number;
  topP?: number;
  stop?: string[];
  responseFormat?: ResponseFormat;
}

export type FinishReason = 'stop' | 'length' | 'stop_sequence' | 'content_filter';

/** A compat job's result: what the winning attempt's provider answered. */
export interface ChatCompletion {
  text: string;
  finishReason: FinishReason;
  /** The stop sequence that ended the text, when `finishReason` is `stop_sequence`. */
  stopSequence?: string | null;
  usage: { inputTokens: number; outputTokens: number };
  /** The provider whose attempt won, and the model it ran. */
  provider: string;
  model: string;
}

/** What a route needs besides the request: the model name, and how to answer. */
export interface ParsedCall {
  model: string;
  stream: boolean;
  /** OpenAI `stream_options.include_usage`: a last chunk with the usage. */
  includeUsage: boolean;
  request: ChatRequest;
}

/** The whole conversation as one text, for token estimates and tokenizer checks. */
export function conversationText(request: ChatRequest): { system?: string; user: string } {
  return {
    ...(request.system !== undefined ? { system: request.system } : {}),
    user: request.messages.map((m) => m.content).join('\n\n'),
  };
}
