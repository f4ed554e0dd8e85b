import type { Logger } from 'pino';
import { eventJson, type Publisher } from '../publisher.js';

/** Where the log publisher writes: the engine's logger at debug level, or raw lines on stdout. */
export type LogOutput = 'logger' | 'stdout';

export const LOG_DEFAULTS = { output: 'logger' } as const satisfies { output: LogOutput };

/**
 * The default publisher. With `output: 'logger'` (the default) each event goes through the
 * logger at debug level, so a terminal running `onejob serve` shows onejob's own log and
 * `LOG_LEVEL=debug` adds the events. With `output: 'stdout'`, one CloudEvent JSON line
 * per event on stdout, for a pipe that reads them. `write` replaces stdout (tests).
 */
export function logPublisher(
  options: {
    name?: string;
    output?: LogOutput;
    logger?: Pick<Logger, 'debug' | 'isLevelEnabled'>;
    write?: (line: string) => void;
  } = {},
): Publisher {
  const { logger, output = LOG_DEFAULTS.output } = options;
  const toStdout = options.write ?? ((line: string) => void process.stdout.write(line));
  const write =
    output === 'stdout' || options.write || !logger
      ? (e: Parameters<Publisher['publish']>[0]) => toStdout(`${eventJson(e)}\n`)
      : (e: Parameters<Publisher['publish']>[0]) => {
          if (logger.isLevelEnabled('debug')) logger.debug({ event: e.event }, `outbox event ${e.type}`);
        };
  return {
    name: options.name ?? 'log',
    kind: 'log',
    concurrency: 1,
    async publish(e) {
      write(e);
      return {};
    },
    async close() {},
  };
}
