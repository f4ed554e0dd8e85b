// The CLI's times (archive --finished-before, ledger --as-of) are read by the API's own
// instant parser: a date that does not exist is refused, never rolled over.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseTimeOrAgo } from '../../src/cli/parseTime.js';
import { runCli } from './runCli.js';

describe('parseTimeOrAgo', () => {
  it('refuses a calendar date that does not exist instead of rolling it over', () => {
    expect(() => parseTimeOrAgo('2025-02-30')).toThrow(/"2025-02-30" is neither/);
    expect(() => parseTimeOrAgo('2025-02-30T00:00:00Z')).toThrow(/is neither/);
    expect(() => parseTimeOrAgo('2025-13-01T00:00:00Z')).toThrow(/is neither/);
  });

  it('refuses an instant without a time zone, which would be read in the local one', () => {
    expect(() => parseTimeOrAgo('2025-03-01T12:00:00')).toThrow(/is neither/);
    expect(() => parseTimeOrAgo('March 1, 2025')).toThrow(/is neither/);
  });

  it('reads an instant with its offset, a bare date as midnight UTC, and a duration before now', () => {
    expect(parseTimeOrAgo('2025-03-01T12:00:00+02:00').toISOString()).toBe('2025-03-01T10:00:00.000Z');
    expect(parseTimeOrAgo('2024-02-29').toISOString()).toBe('2024-02-29T00:00:00.000Z');
    const now = Date.parse('2025-03-01T00:00:00Z');
    expect(parseTimeOrAgo('30d', now).toISOString()).toBe('2025-01-30T00:00:00.000Z');
    expect(parseTimeOrAgo('90m', now).toISOString()).toBe('2025-02-28T22:30:00.000Z');
  });

  it('onejob archive refuses a date that does not exist before it looks for a database', async () => {
    // A folder with no .onejob: had the date passed, archive would have asked for DATABASE_URL.
    const empty = mkdtempSync(join(tmpdir(), 'onejob-parse-time-'));
    try {
      const r = await runCli(
        ['archive', '--finished-before', '2025-02-30'],
        { DATABASE_URL: undefined },
        empty,
      );
      expect(r.code).not.toBe(0);
      expect(r.stderr).toMatch(/"2025-02-30" is neither/);
      expect(r.stdout).toBe('');
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
