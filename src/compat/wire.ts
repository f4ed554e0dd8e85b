// What each vendor's wire module (src/compat/openai/, src/compat/anthropic/) supplies:
// to the compat routes, how to read a request and how to answer with a completion (whole
// or as a stream) or say no; to the provider adapters, how to send the normalised request
// upstream and read what comes back, whole or event by event.
import type { ChatCompletion, ChatRequest, FinishReason, ParsedCall } from './chatRequest.js';
import type { SseEvent } from './readSse.js';
import { streamPieces } from './streamPieces.js';

/** The call an answer is for: ids derive from the job, so every duplicate gets the same ones. */
export interface WireCall {
  jobId: string;
  createdAt: string;
  /** The model name the client sent. */
  model: string;
  includeUsage: boolean;
}

export interface WireError {
  status: number;
  /** onejob's stable error code. */
  code: string;
  message: string;
  param?: string | undefined;
}

/**
 * A stream in three parts, so a live stream can send its head at once, each piece as
 * the winning attempt produces it, and its tail once the completion is stored. Each
 * element is one Server-Sent Event with its blank line.
 */
export interface StreamParts {
  head(call: WireCall): string[];
  piece(call: WireCall, text: string): string;
  tail(call: WireCall, completion: ChatCompletion): string[];
  /** A refusal after the status line has gone out: an error event, which both SDKs raise. */
  error(error: WireError): string;
}

export interface WireAnswer {
  completionBody(call: WireCall, completion: ChatCompletion): unknown;
  stream: StreamParts;
  errorBody(error: WireError): unknown;
}

/** The whole stream of a stored completion: what a live stream of it sends too. */
export function streamEvents(parts: StreamParts, call: WireCall, completion: ChatCompletion): string[] {
  return [
    ...parts.head(call),
    ...streamPieces(completion.text).map((text) => parts.piece(call, text)),
    ...parts.tail(call, completion),
  ];
}

/** A streamed upstream answer as far as it has been read. */
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

/** The call to a provider that speaks this wire. */
export interface UpstreamWire {
  /** Why the request cannot be sent in this wire, when it cannot; nothing is sent then. */
  cannotCarry(request: ChatRequest): string | undefined;
  /** The request body; `temperature` is the call's (verification sets the contract's). */
  upstreamBody(
    request: ChatRequest,
    model: string,
    options: { temperature: number | undefined; defaultMaxTokens: number },
  ): object;
  /** What the body adds when the answer is to be streamed. */
  streamFields: object;
  /** The completion a whole answer's body holds, or why it holds none. */
  completion(
    body: Record<string, unknown>,
    provider: string,
    model: string,
  ): ChatCompletion | { invalid: string };
  /** Reads one event of a streamed answer into `answer`, and returns the text it carries. */
  streamEvent(event: SseEvent, answer: StreamedAnswer): unknown;
}

/** One vendor's whole wire: its SDK's side and its providers' side. */
export interface WireFormat extends WireAnswer, UpstreamWire {
  name: 'openai' | 'anthropic';
  normalize(body: unknown): ParsedCall;
}
