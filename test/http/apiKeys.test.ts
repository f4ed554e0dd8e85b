import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService } from '../../src/cli/serve/startService.js';
import { ApiKeys } from '../../src/http/apiKeys.js';
import { createTestDatabase, type TestDatabase } from '../helpers/testDatabase.js';

const LONG_B64 = 'c2VjcmV0LXRva2VuLWZvci1hbGljZQ=='; // base64, ends in "="

describe('ONEJOB_API_KEYS', () => {
  it('splits each pair at its last "=", so a base64 token ending in "=" maps to its own owner', () => {
    const keys = ApiKeys.parse(`${LONG_B64}=alice, dG9rZW4tZm9yLWJvYi0xMjM0NQ==bob`);
    expect(keys.ownerOf(LONG_B64)).toBe('alice');
    expect(keys.ownerOf('dG9rZW4tZm9yLWJvYi0xMjM0NQ=')).toBe('bob');
    expect(keys.ownerOf('c2VjcmV0LXRva2VuLWZvci1hbGljZQ')).toBeUndefined();
    expect(keys.size).toBe(2);
  });

  it('refuses a pair without an owner id after its last "="', () => {
    expect(() => ApiKeys.parse(`${LONG_B64}`)).toThrow(/last "="/);
    expect(() => ApiKeys.parse('=owner')).toThrow(/token=ownerId/);
  });

  it('warns about a token shorter than 16 characters, naming the owner and never the token', () => {
    const warnings: string[] = [];
    ApiKeys.parse(`short=carol,${LONG_B64}=alice`, (m) => warnings.push(m));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('carol');
    expect(warnings[0]).toContain('16');
    expect(warnings[0]).not.toContain('short');
  });
});

describe('a service started with a short token', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => db?.drop());

  it('logs a warning at start', async () => {
    const lines: { level: number; msg: string }[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => lines.push(JSON.parse(line)) });
    const service = await startService({
      roles: [],
      env: { DATABASE_URL: db.url, ONEJOB_API_KEYS: 'tok=dave' },
      logger,
    });
    await service.stop();
    expect(lines.some((l) => l.level === 40 && l.msg.includes('owner dave') && l.msg.includes('16'))).toBe(
      true,
    );
  });
});
