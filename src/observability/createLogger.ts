import pino, { type DestinationStream, type Logger } from 'pino';

// One asynchronous stdout stream per process. A synchronous write per log line (pino's
// default) was about a tenth of the API server's CPU under load; an asynchronous stream
// writes what accumulated while the previous write was in flight in one system call.
// pino flushes it on exit; a SIGKILL can lose the lines of the last write in flight.
let stdout: DestinationStream | undefined;

export function createLogger(level = process.env.LOG_LEVEL ?? 'info'): Logger {
  const options = {
    level,
    base: { service: 'onejob' },
    // Tokens and signatures never reach the logs.
    redact: { paths: ['req.headers.authorization', 'req.headers["webhook-signature"]'], remove: true },
  };
  if (level === 'silent') return pino(options);
  stdout ??= pino.destination({ dest: 1, sync: false });
  return pino(options, stdout);
}
