// The acceptance case for the client's retries: the server commits the job and dies
// before answering (failpoint api.after_commit=kill). The client resends the same key to
// the restarted server and gets the job the first request created.
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RetryInfo } from '../../src/client/index.js';
import { createClient, newIntentKey } from '../../src/client/index.js';
import { apiBase, type SpawnedOnejob, spawnOnejob } from '../helpers/spawnOnejob.js';
import { createTestDatabase, type TestDatabase } from '../helpers/testDatabase.js';
import { startFaultyProxy } from './faultyProxy.js';

const TOKEN = 'kill-test-token';
let db: TestDatabase;
const spawned: SpawnedOnejob[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  for (const s of spawned) await s.kill('SIGKILL');
  await db?.drop();
});

function serve(failpoints?: string): { process: SpawnedOnejob; url: Promise<string> } {
  const process = spawnOnejob(['serve', '--role', 'api'], {
    DATABASE_URL: db.url,
    ONEJOB_API_KEYS: `${TOKEN}=owner-kill`,
    PORT: '0',
    LOG_LEVEL: 'warn',
    ONEJOB_FAILPOINTS: failpoints,
  });
  spawned.push(process);
  const url = apiBase(process, 90_000);
  return { process, url };
}

it('a server killed after commit, then restarted: the retried create gets the same job id', async () => {
  const first = serve('api.after_commit=kill');
  const proxy = await startFaultyProxy(first.url);
  const retries: RetryInfo[] = [];
  const client = createClient({
    baseUrl: proxy.url,
    token: TOKEN,
    // The held retry waits for a whole server start, which is slow on a loaded machine.
    timeoutMs: 90_000,
    retry: {
      baseDelayMs: 50,
      maxDelayMs: 200,
      // Restart the server when the first try fails; the proxy holds the retry until it listens.
      beforeRetry: (info) => {
        retries.push(info);
        if (retries.length === 1) proxy.setTarget(first.process.exited.then(() => serve().url));
      },
    },
  });
  try {
    const key = newIntentKey('checkout-');
    const { job, replayed, tries } = await client.jobs.submit(
      'charge',
      { amount: 1999 },
      { idempotencyKey: key },
    );

    expect(await first.process.exited).toBe('SIGKILL');
    expect(first.process.output()).toContain('failpoint api.after_commit: SIGKILL');
    expect(retries.map((r) => r.status)).toEqual([0]);
    expect(tries).toBe(2);
    // The retry found the job the killed server had committed, not a new one.
    expect(replayed).toBe(true);
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    try {
      const { rows } = await c.query(
        'SELECT id FROM onejob.jobs WHERE owner_id = $1 AND idempotency_key = $2',
        ['owner-kill', key],
      );
      expect(rows).toEqual([{ id: job.id }]);
    } finally {
      await c.end();
    }
    expect(proxy.seen.map((s) => s.idempotencyKey)).toEqual([key, key]);
  } finally {
    await proxy.close();
  }
}, 120_000);
