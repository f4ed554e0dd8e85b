import pino from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { oncePerOutage } from '../../src/db/createPool.js';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level: 'warn' }, { write: (line: string) => lines.push(JSON.parse(line)) });
  return { logger, lines };
}

describe('pool connection failures', () => {
  afterEach(() => vi.useRealTimers());

  it('a server dying under twenty connections logs one warning, not twenty stack traces', () => {
    vi.useFakeTimers();
    const { logger, lines } = capture();
    const failed = oncePerOutage(logger, 'idle PostgreSQL connection failed', 5_000);
    for (let i = 0; i < 20; i++) failed(new Error('Connection terminated unexpectedly'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ msg: 'idle PostgreSQL connection failed' });
    expect(lines[0]).not.toHaveProperty('alsoFailed');
  });

  it('the next warning after the window counts the failures it kept quiet', () => {
    vi.useFakeTimers();
    const { logger, lines } = capture();
    const failed = oncePerOutage(logger, 'lost', 5_000);
    failed(new Error('first'));
    failed(new Error('second'));
    failed(new Error('third'));
    vi.advanceTimersByTime(5_000);
    failed(new Error('later'));
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatchObject({ msg: 'lost', alsoFailed: 2, err: { message: 'later' } });
  });
});
