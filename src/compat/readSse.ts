// Server-Sent Events from a response body, event by event (WHATWG `text/event-stream`:
// `event:` and `data:` lines, a blank line ends an event, `:` starts a comment).
export interface SseEvent {
  event: string | undefined;
  data: string;
}

export async function* readSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true }).replace(/\r\n?/g, '\n');
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event: string | undefined;
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'event') event = value;
        else if (field === 'data') data.push(value);
      }
      if (data.length || event) yield { event, data: data.join('\n') };
    }
  }
}

// biome-ignore lint/suspicious/noExplicitAny: a provider event is read field by field, each checked where it is used.
export type EventData = Record<string, any>;

/** An event's `data` as a JSON object, or undefined when it is not one (a comment, a keep-alive). */
export function parseEventData(data: string): EventData | undefined {
  try {
    const value = JSON.parse(data) as unknown;
    return typeof value === 'object' && value !== null ? (value as EventData) : undefined;
  } catch {
    return undefined;
  }
}
