/**
 * Reads the body of a dashboard job stream (server-sent events) one `job` event at a time: each call
 * answers the next job the server sent, skipping other events, or null once the stream ended.
 */
export function jobEvents(stream: Response): () => Promise<{ state: string } | null> {
  const reader = stream.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  return async () => {
    for (;;) {
      const end = buffer.indexOf('\n\n');
      if (end >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = block.split('\n').find((l) => l.startsWith('data: '));
        if (block.startsWith('event: job') && data) return JSON.parse(data.slice(6));
        continue;
      }
      const { value, done } = await reader.read();
      if (done) return null;
      buffer += value;
    }
  };
}
