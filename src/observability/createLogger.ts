import pino, { type Logger } from 'pino';

export function createLogger(level = process.env.LOG_LEVEL ?? 'info'): Logger {
  return pino({
    level,
    base: { service: 'onejob' },
    // Tokens and signatures never reach the logs.
    redact: { paths: ['req.headers.authorization', 'req.headers["webhook-signature"]'], remove: true },
  });
}
