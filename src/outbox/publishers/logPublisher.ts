import { eventJson, type Publisher } from '../publisher.js';

/** The default publisher: one CloudEvent JSON line per event on stdout. */
export function logPublisher(options: { name?: string; write?: (line: string) => void } = {}): Publisher {
  const write = options.write ?? ((line: string) => void process.stdout.write(line));
  return {
    name: options.name ?? 'log',
    kind: 'log',
    concurrency: 1,
    async publish(e) {
      write(`${eventJson(e)}\n`);
      return {};
    },
    async close() {},
  };
}
