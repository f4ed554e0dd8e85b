// A streamed upstream answer, read event by event into a completion: the vendor's wire
// reads each event (src/compat/<vendor>/), each text delta is handed on as it arrives
// (ProviderCall.onText), and the events that end the stream carry the finish reason and
// the usage. A stream that stops before its last event is not an answer: the caller
// classifies it as unknown.
import type { SseEvent } from '../../compat/readSse.js';
import type { StreamedAnswer, UpstreamWire } from '../../compat/wire.js';

/** Reads the events; `onText` false stops reading (the call was outvoted and is being aborted). */
export async function streamedCompletion(
  wire: UpstreamWire,
  events: AsyncIterable<SseEvent>,
  onText: (delta: string) => Promise<boolean>,
): Promise<StreamedAnswer> {
  const answer: StreamedAnswer = {
    text: '',
    finishReason: 'stop',
    inputTokens: 0,
    outputTokens: 0,
    complete: false,
  };
  for await (const event of events) {
    const delta = wire.streamEvent(event, answer);
    if (answer.error !== undefined || answer.complete) break;
    if (typeof delta !== 'string' || delta.length === 0) continue;
    answer.text += delta;
    if (!(await onText(delta))) break;
  }
  return answer;
}
