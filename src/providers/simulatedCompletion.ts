// The simulated provider answering a compat model's call (the SDK drop-in, docs/compat.md):
// a chat completion made from the request alone, so the drop-in works with no network and
// no key. The routes render it in the client's wire format, OpenAI's or Anthropic's, so
// both come for free; a streamed call gets its text word by word through `onText`. The
// simulated provider's script (latency, failures, timeouts) applies before the answer, as
// for every other simulated call.
import type { ChatCompletion, ChatRequest, FinishReason } from '../compat/chatRequest.js';
import { streamPieces } from '../compat/streamPieces.js';
import type { JsonSchema, Prices } from '../config/types.js';
import { inferenceCost } from './inference/inferenceCost.js';
import { sampleFromSchema } from './inference/simulateInference.js';
import type { ProviderCall, ProviderOutcome } from './types.js';

/** What `ChatCompletion.model` says for a simulated answer: no model ran. */
export const SIMULATED_MODEL = 'simulated';

/** Roughly four characters per token: enough to make simulated costs visible. */
const tokens = (text: string) => Math.max(1, Math.ceil(text.length / 4));

/** The answer's text: the scripted output, JSON when the client asked for JSON, else a sentence echoing the request. */
function answerText(name: string, request: ChatRequest, scripted: unknown): string {
  if (typeof scripted === 'string') return scripted;
  if (scripted !== undefined) return JSON.stringify(scripted);
  const last = [...request.messages].reverse().find((m) => m.role === 'user')?.content ?? '';
  const echo = last.length > 80 ? `${last.slice(0, 79)}…` : last;
  const format = request.responseFormat;
  if (format?.type === 'json_schema')
    return JSON.stringify(
      sampleFromSchema(format.json_schema.schema as JsonSchema | undefined, 'answer', echo),
    );
  if (format?.type === 'json_object') return JSON.stringify({ answer: `simulated answer to: ${echo}` });
  return `This is a simulated answer from ${name}, made without calling any model. You wrote: "${echo}"`;
}

/** The text cut where the request says: at its first stop sequence, else at max tokens. */
function ending(
  text: string,
  request: ChatRequest,
): { text: string; finishReason: FinishReason; stopSequence?: string } {
  let first: { at: number; stop: string } | undefined;
  for (const stop of request.stop ?? []) {
    const at = stop ? text.indexOf(stop) : -1;
    if (at !== -1 && (first === undefined || at < first.at)) first = { at, stop };
  }
  if (first) text = text.slice(0, first.at);
  const max = request.maxTokens;
  if (max !== undefined && max > 0 && tokens(text) > max)
    return { text: text.slice(0, max * 4), finishReason: 'length' };
  return first
    ? { text, finishReason: 'stop_sequence', stopSequence: first.stop }
    : { text, finishReason: 'stop' };
}

export async function simulateCompletion(
  name: string,
  call: ProviderCall,
  scripted: unknown,
  prices: Prices | undefined,
): Promise<ProviderOutcome> {
  const request = call.input as unknown as ChatRequest;
  const { text, finishReason, stopSequence } = ending(answerText(name, request, scripted), request);
  const prompt = [request.system ?? '', ...request.messages.map((m) => m.content)].join('\n\n');
  const usage = { inputTokens: tokens(prompt), outputTokens: tokens(text) };
  const costMicros = inferenceCost(prices, usage);
  const cost = costMicros !== undefined ? { costMicros } : {};
  if (call.onText) {
    for (const piece of streamPieces(text)) {
      // A sibling attempt claimed the stream, or the attempt was stopped: this answer will not be the job's.
      if (call.signal.aborted || !(await call.onText(piece)))
        return {
          kind: 'unknown',
          error: { code: 'aborted', message: `${name}: the stream was stopped` },
          usage,
          ...cost,
        };
    }
  }
  const completion: ChatCompletion = {
    text,
    finishReason,
    ...(stopSequence !== undefined ? { stopSequence } : {}),
    usage,
    provider: name,
    model: SIMULATED_MODEL,
  };
  return { kind: 'success', result: completion, usage, ...cost };
}
