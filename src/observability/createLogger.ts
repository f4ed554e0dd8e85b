import { createRequire } from 'node:module';
import pino, { type DestinationStream, type Logger } from 'pino';

// One asynchronous stdout stream per process. A synchronous write per log line (pino's
// default) was about a tenth of the API server's CPU under load; an asynchronous stream
// writes what accumulated while the previous write was in flight in one system call.
// pino flushes it on exit; a SIGKILL can lose the lines of the last write in flight.
let stdout: DestinationStream | undefined;

/** JSON lines for machines, or one readable line per entry for a person at a terminal. */
export type LogFormat = 'json' | 'pretty';
export const LOG_FORMATS: readonly LogFormat[] = ['json', 'pretty'];

/**
 * `LOG_FORMAT` when set (`json` or `pretty`); else pretty when stdout is a terminal and
 * JSON when it is a pipe or a file, which a log collector reads.
 */
export function logFormat(
  env: NodeJS.ProcessEnv = process.env,
  tty = process.stdout.isTTY === true,
): LogFormat {
  const given = env.LOG_FORMAT;
  if (given === undefined || given === '') return tty ? 'pretty' : 'json';
  if (!LOG_FORMATS.includes(given as LogFormat))
    throw new Error(`LOG_FORMAT "${given}" is not one of ${LOG_FORMATS.join(', ')}`);
  return given as LogFormat;
}

/** `destination` replaces stdout (tests read what is logged). */
export function createLogger(
  level = process.env.LOG_LEVEL ?? 'info',
  destination?: DestinationStream,
  format: LogFormat = logFormat(),
): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { service: 'onejob' },
    // Tokens and signatures never reach the logs.
    redact: { paths: ['req.headers.authorization', 'req.headers["webhook-signature"]'], remove: true },
    serializers: { err: serializeError, error: serializeError },
  };
  if (destination) return pino(options, destination);
  if (level === 'silent') return pino(options);
  if (format === 'pretty') return pino(options, prettyStdout());
  stdout ??= pino.destination({ dest: 1, sync: false });
  return pino(options, stdout);
}

let pretty: DestinationStream | undefined;

/** pino-pretty in this thread (no transport worker), loaded only when a terminal asks for it. */
function prettyStdout(): DestinationStream {
  const build = createRequire(import.meta.url)('pino-pretty') as (options: object) => DestinationStream;
  pretty ??= build({
    colorize: process.stdout.isTTY === true && !process.env.NO_COLOR,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname,service',
    // Fields follow the message on its line; an error's stack still gets lines of its own.
    singleLine: true,
  });
  return pretty;
}

export interface LoggedError {
  type?: string;
  message: string;
  code?: string;
  stack?: string;
  cause?: LoggedError;
}

/**
 * An error as its message, code and stack, never the whole object: library errors carry
 * references (pg-pool puts the pg Client on a connection error, with its prepared
 * statements and the backend's secret key) that would flood the log and leak secrets.
 */
export function serializeError(value: unknown, depth = 0): LoggedError | string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object') return String(value).slice(0, 1000);
  const e = value as { name?: unknown; message?: unknown; code?: unknown; stack?: unknown; cause?: unknown };
  const out: LoggedError = {
    message: typeof e.message === 'string' ? e.message : summary(value),
  };
  if (value instanceof Error) out.type = value.name;
  if (typeof e.code === 'string' || typeof e.code === 'number') out.code = String(e.code);
  if (typeof e.stack === 'string') out.stack = e.stack;
  if (e.cause !== undefined && depth < 3) {
    const cause = serializeError(e.cause, depth + 1);
    if (cause !== undefined) out.cause = typeof cause === 'string' ? { message: cause } : cause;
  }
  return out;
}

/** A plain object without a message (a provider's error body): its JSON, cut short. */
function summary(value: object): string {
  try {
    return (JSON.stringify(value) ?? '').slice(0, 500);
  } catch {
    return Object.prototype.toString.call(value);
  }
}
