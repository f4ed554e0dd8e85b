import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { DatabaseOutage } from '../../src/db/databaseOutage.js';

function recording() {
  const lines: { level: number; msg: string }[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => lines.push(JSON.parse(line)) });
  return { logger, lines, above: (level: number) => lines.filter((l) => l.level >= level).map((l) => l.msg) };
}

const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });

describe('a loop through a database outage', () => {
  it('logs the outage once when it begins and once when it ends, however many passes fail', () => {
    const { logger, above } = recording();
    const outage = new DatabaseOutage(logger, 'claiming');
    outage.succeeded();
    for (let i = 0; i < 50; i++) outage.failed(refused, 'claiming failed', 200);
    expect(outage.ongoing).toBe(true);
    outage.succeeded();
    outage.succeeded();
    expect(above(30)).toEqual([
      'database unavailable; claiming paused until it answers',
      'database reachable again; claiming resumed',
    ]);
    expect(outage.ongoing).toBe(false);
  });

  it('waits longer while the outage lasts, from 100 ms up to 2 s, and starts over after it', () => {
    const { logger } = recording();
    const outage = new DatabaseOutage(logger, 'relay');
    const waits = Array.from({ length: 8 }, () => outage.failed(refused, 'relay failed', 200));
    expect(waits).toEqual([100, 200, 400, 800, 1600, 2000, 2000, 2000]);
    outage.succeeded();
    expect(outage.failed(refused, 'relay failed', 200)).toBe(100);
  });

  it('any other error is logged every time with its own message and waits the usual interval', () => {
    const { logger, above } = recording();
    const outage = new DatabaseOutage(logger, 'claiming');
    const bug = new Error('column "x" does not exist');
    expect(outage.failed(bug, 'claiming failed', 200)).toBe(200);
    expect(outage.failed(bug, 'claiming failed', 200)).toBe(200);
    expect(above(40)).toEqual(['claiming failed', 'claiming failed']);
    expect(outage.ongoing).toBe(false);
  });
});
