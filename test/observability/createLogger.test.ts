import { Writable } from 'node:stream';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/observability/createLogger.js';

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { logger: createLogger('info', stream), lines };
}

describe('logged errors', () => {
  it('an error carrying a pg Client (as pg-pool attaches it) is logged as message, code and stack only', () => {
    const { logger, lines } = capture();
    const error = Object.assign(new Error('Connection terminated unexpectedly'), {
      code: 'ECONNRESET',
      client: new pg.Client({ connectionString: 'postgres://u:secret-password@127.0.0.1:1/db' }),
    });
    logger.warn({ err: error }, 'idle PostgreSQL connection failed');
    logger.warn({ error }, 'attempt outcome unknown');
    expect(lines).toHaveLength(2);
    for (const line of lines) {
      const logged = JSON.parse(line) as Record<string, Record<string, unknown>>;
      const field = logged.err ?? logged.error;
      expect(Object.keys(field!).sort()).toEqual(['code', 'message', 'stack', 'type']);
      expect(field).toMatchObject({ message: 'Connection terminated unexpectedly', code: 'ECONNRESET' });
      expect(line).not.toContain('secret-password');
      expect(line.length).toBeLessThan(2000);
    }
  });

  it('a plain error object is logged as its message and code, a circular one without throwing', () => {
    const { logger, lines } = capture();
    const circular: Record<string, unknown> = { reason: 'x' };
    circular.self = circular;
    logger.warn(
      { error: { code: 'provider_timeout', message: 'no answer in 30 s', body: 'x'.repeat(5000) } },
      'a',
    );
    logger.warn({ err: circular }, 'b');
    expect(JSON.parse(lines[0]!).error).toEqual({ code: 'provider_timeout', message: 'no answer in 30 s' });
    expect(JSON.parse(lines[1]!).err.message).toBe('[object Object]');
  });
});
