// What each SDK wire format supplies to the compat routes: how to read a request, how
// to answer with a completion (whole or as a stream), and how to say no.
import type { ChatCompletion, ParsedCall } from './chatRequest.js';
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

export interface WireFormat extends WireAnswer {
  name: 'openai' | 'anthropic';
  normalize(body: unknown): ParsedCall;
}
