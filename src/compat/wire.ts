// What each SDK wire format supplies to the compat routes: how to read a request, how
// to answer with a completion (whole or as a stream), and how to say no.
import type { ChatCompletion, ParsedCall } from './chatRequest.js';

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

export interface WireAnswer {
  completionBody(call: WireCall, completion: ChatCompletion): unknown;
  /** The whole stream, each element one Server-Sent Event with its blank line. */
  streamEvents(call: WireCall, completion: ChatCompletion): string[];
  errorBody(error: WireError): unknown;
}

export interface WireFormat extends WireAnswer {
  name: 'openai' | 'anthropic';
  normalize(body: unknown): ParsedCall;
}
