// onejob behind a real PgBouncer 1.18 in transaction mode, with fewer server connections
// than onejob's pool has clients: every transaction may land on another server session.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import pino from 'pino';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningService, startService } from '../../src/cli/serve/startService.js';
import { defaultConfig } from '../../src/config/defaultConfig.js';
import type { OnejobConfig } from '../../src/config/types.js';
import { createOnejob, type Onejob } from '../../src/createOnejob.js';
import { detectTransactionPooler } from '../../src/db/detectPooler.js';
import { DUPLICATE_PREPARED_STATEMENT, INVALID_SQL_STATEMENT_NAME, sqlState } from '../../src/db/sqlstate.js';
import { unnamedStatementsOnly } from '../../src/db/unnamedStatements.js';
import { isOnejobError } from '../../src/errors/OnejobError.js';
import { PollingNotificationHub } from '../../src/events/pollingNotificationHub.js';
import { OUTBOX_CHANNEL } from '../../src/events/wakeups.js';
import { runCli } from '../cli/runCli.js';
import { type PgBouncer, pgBouncerPath, startPgBouncer } from '../helpers/startPgBouncer.js';
import { createTestDatabase, type TestDatabase } from '../helpers/testDatabase.js';
import { until } from '../helpers/until.js';
import { deleteStream, NATS_URL, streamMessages, uniqueName } from '../outbox/outboxTestKit.js';

// Server connections PgBouncer opens to PostgreSQL; onejob's pool has 20 clients.
const POOL_SIZE = 3;
const TOKEN = 'pooler-test-token-0123456789';
const SECRET = `whsec_${randomBytes(24).toString('base64')}`;
const stream = uniqueName('ONEJOB_PGB_');
const prefix = `${uniqueName('pgb')}.`;

const config: OnejobConfig = {
  ...structuredClone(defaultConfig),
  outbox: {
    publishers: [{ kind: 'nats', url: NATS_URL, stream, subjectPrefix: prefix, timeoutMs: 2_000 }],
    pollMs: 100,
  },
  inbox: {
    sources: {
      payments: {
        scheme: 'standard-webhooks',
        secretEnv: 'PGB_TEST_WEBHOOK_SECRET',
        eventId: 'header:webhook-id',
        operation: 'charge',
        ownerId: 'acme',
      },
    },
  },
  worker: { pollMs: 50 },
};

const silent = pino({ level: 'silent' });
let db: TestDatabase;
let bouncer: PgBouncer;
let configPath: string;
let service: RunningService | undefined;

const env = (extra: Record<string, string>): NodeJS.ProcessEnv => ({
  ONEJOB_API_KEYS: `${TOKEN}=acme`,
  PGB_TEST_WEBHOOK_SECRET: SECRET,
  PORT: '0',
  HOST: '127.0.0.1',
  ...extra,
});

const describeWithPgBouncer = pgBouncerPath() ? describe : describe.skip;

beforeAll(async () => {
  if (!pgBouncerPath()) return;
  db = await createTestDatabase();
  bouncer = await startPgBouncer({ database: db.name, poolSize: POOL_SIZE });
  const dir = await mkdtemp(join(tmpdir(), 'onejob-pgbouncer-config-'));
  configPath = join(dir, 'onejob.json');
  await writeFile(configPath, JSON.stringify(config));
});

afterAll(async () => {
  await service?.stop();
  await bouncer?.stop();
  await db?.drop();
  await deleteStream(stream);
});

const api = (path: string, init: RequestInit & { json?: unknown; key?: string } = {}) => {
  const { json, key, ...rest } = init;
  const headers = new Headers(rest.headers);
  headers.set('authorization', `Bearer ${TOKEN}`);
  if (key) headers.set('idempotency-key', key);
  if (json !== undefined) headers.set('content-type', 'application/json');
  return fetch(`${service!.url}${path}`, {
    ...rest,
    headers,
    body: json === undefined ? rest.body : JSON.stringify(json),
  });
};
const postJob = (key: string, input: unknown) =>
  api('/v1/jobs', { method: 'POST', key, json: { operation: 'charge', input } });

async function startRefused(extra: Record<string, string>): Promise<unknown> {
  try {
    const started = await startService({ env: env(extra), configPath, logger: silent, roles: ['api'] });
    await started.stop();
  } catch (error) {
    return error;
  }
  return undefined;
}

describeWithPgBouncer(
  `PgBouncer in transaction mode${pgBouncerPath() ? '' : ' (skipped: pgbouncer is not installed)'}`,
  () => {
    it('an undeclared transaction pooler is refused at start, with an error naming the setting', async () => {
      const error = await startRefused({ DATABASE_URL: bouncer.url });
      expect(isOnejobError(error, 'database_pooler_undeclared')).toBe(true);
      expect((error as Error).message).toContain('ONEJOB_DATABASE_POOLER=transaction');
      expect((error as Error).message).toContain('"pooler": "transaction"');
    });

    it('neither PostgreSQL itself nor PgBouncer in session mode is taken for a transaction pooler', async () => {
      expect(await detectTransactionPooler(db.url)).toBeUndefined();
      const session = await startPgBouncer({ database: db.name, poolSize: POOL_SIZE, poolMode: 'session' });
      try {
        expect(await detectTransactionPooler(session.url)).toBeUndefined();
      } finally {
        await session.stop();
      }
    });

    it('migrations are refused through the pooler without DATABASE_DIRECT_URL, naming it', async () => {
      const error = await startRefused({ DATABASE_URL: bouncer.url, ONEJOB_DATABASE_POOLER: 'transaction' });
      expect(isOnejobError(error, 'database_pooler_migration_refused')).toBe(true);
      expect((error as Error).message).toContain('DATABASE_DIRECT_URL');
    });

    it('onejob migrate refuses an undeclared pooler, and migrates over DATABASE_DIRECT_URL when declared', async () => {
      const [undeclared, declared] = await Promise.all([
        runCli(['migrate'], { DATABASE_URL: bouncer.url }),
        runCli(['migrate'], {
          DATABASE_URL: bouncer.url,
          DATABASE_DIRECT_URL: db.url,
          ONEJOB_DATABASE_POOLER: 'transaction',
        }),
      ]);
      expect(undeclared.code).not.toBe(0);
      expect(undeclared.stderr).toContain('ONEJOB_DATABASE_POOLER=transaction');
      expect(declared).toMatchObject({ code: 0, stdout: expect.stringContaining('nothing to apply') });
    });

    it('named prepared statements break through this pooler, and a pool in transaction mode sends none', async () => {
      // The failure the mode exists for, reproduced: the same named statement from many clients.
      const raw = new pg.Pool({ connectionString: bouncer.url, max: 10 });
      const unnamed = new pg.Pool({ connectionString: bouncer.url, max: 10 });
      unnamedStatementsOnly(unnamed);
      const burst = (pool: pg.Pool) =>
        Promise.all(
          Array.from({ length: 20 }, () =>
            pool.query({ name: 'onejob-test-probe', text: 'SELECT 1 AS one' }),
          ),
        );
      try {
        let broke: unknown;
        for (let round = 0; round < 50 && !broke; round++) await burst(raw).catch((error) => (broke = error));
        expect([INVALID_SQL_STATEMENT_NAME, DUPLICATE_PREPARED_STATEMENT]).toContain(sqlState(broke));
        for (let round = 0; round < 20; round++) await burst(unnamed);
      } finally {
        await raw.end();
        await unnamed.end();
      }
    });

    it('starts through the pooler when declared, with LISTEN and migrations over the direct URL', async () => {
      service = await startService({
        env: env({
          DATABASE_URL: bouncer.url,
          DATABASE_DIRECT_URL: db.url,
          ONEJOB_DATABASE_POOLER: 'transaction',
        }),
        configPath,
        logger: silent,
      });
      expect(service.onejob.wakeups).not.toBeInstanceOf(PollingNotificationHub);
      // The relay listens from the start: its session is PostgreSQL's own, none of PgBouncer's.
      const listening = await until('the LISTEN session', async () => {
        const { rows } = await service!.onejob.pool.query<{ pid: number }>(
          `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query ILIKE 'LISTEN%'`,
        );
        return rows.length > 0 ? rows.map((r) => r.pid) : undefined;
      });
      const admin = new pg.Client({ connectionString: bouncer.adminUrl });
      await admin.connect();
      try {
        const servers = (await admin.query<{ remote_pid: string }>('SHOW SERVERS')).rows.map((r) =>
          Number(r.remote_pid),
        );
        expect(servers.length).toBeGreaterThan(0);
        for (const pid of listening) expect(servers).not.toContain(pid);
      } finally {
        await admin.end();
      }
    });

    it('intake: a create, its replay and a conflict, and 50 concurrent duplicates giving one job id', async () => {
      const created = await postJob('order-1', { amount: 100 });
      expect(created.status).toBe(202);
      const job = (await created.json()) as { id: string };
      const replay = await postJob('order-1', { amount: 100 });
      expect(replay.status).toBe(202);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(((await replay.json()) as { id: string }).id).toBe(job.id);
      const conflict = await postJob('order-1', { amount: 999 });
      expect(conflict.status).toBe(409);
      expect(((await conflict.json()) as { code: string }).code).toBe('idempotency_key_reused');

      const answers = await Promise.all(Array.from({ length: 50 }, () => postJob('order-2', { amount: 7 })));
      expect(answers.map((a) => a.status)).toEqual(Array(50).fill(202));
      const ids = new Set(
        await Promise.all(answers.map(async (a) => ((await a.json()) as { id: string }).id)),
      );
      expect(ids.size).toBe(1);
      const { rows } = await service!.onejob.pool.query(
        `SELECT count(*)::int AS n FROM onejob.jobs WHERE owner_id = 'acme' AND idempotency_key = 'order-2'`,
      );
      expect(rows[0].n).toBe(1);
    });

    it('the worker completes the jobs and the relay publishes their events to NATS', async () => {
      const keys = Array.from({ length: 10 }, (_, i) => `work-${i}`);
      const jobs = await Promise.all(
        keys.map(async (key) => ((await (await postJob(key, { amount: 5 })).json()) as { id: string }).id),
      );
      for (const id of jobs) {
        const settled = (await (await api(`/v1/jobs/${id}?waitMs=20000`)).json()) as { state: string };
        expect(settled.state).toBe('succeeded');
      }
      await until('every job succeeded event in the stream', async () => {
        const succeeded = new Set(
          (await streamMessages(stream))
            .filter((m) => m.event.type === 'onejob.job.succeeded')
            .map((m) => m.event.subject),
        );
        return jobs.every((id) => succeeded.has(id)) || undefined;
      });
    });

    it('the inbox: one event delivered twice gives one job', async () => {
      const body = JSON.stringify({ type: 'payment.succeeded', amount: 4200 });
      const deliver = () => {
        const at = new Date();
        return fetch(`${service!.url}/v1/inbox/payments`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'webhook-id': 'evt_pooled',
            'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
            'webhook-signature': new Webhook(SECRET).sign('evt_pooled', at, body),
          },
          body,
        });
      };
      const first = await deliver();
      const second = await deliver();
      expect([first.status, second.status]).toEqual([202, 202]);
      expect(second.headers.get('idempotent-replayed')).toBe('true');
      expect(await second.json()).toEqual(await first.json());
    });

    it('the ledger: a transfer, its replay, a conflict and a reversal', async () => {
      const transfer = {
        id: 'tr-1',
        debitAccount: 'cash',
        creditAccount: 'sales',
        amount: 250,
        currency: 'EUR',
      };
      const post = (json: unknown) => api('/v1/ledger/transfers', { method: 'POST', json });
      expect((await post(transfer)).status).toBe(201);
      const replay = await post(transfer);
      expect(replay.status).toBe(200);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      const conflict = await post({ ...transfer, amount: 251 });
      expect(((await conflict.json()) as { code: string }).code).toBe(
        'transfer_exists_with_different_fields',
      );
      const reversal = await api('/v1/ledger/transfers/tr-1/reverse', {
        method: 'POST',
        json: { id: 'tr-1-rev', reason: 'refund' },
      });
      expect(reversal.status).toBe(201);
      const balance = (await (await api('/v1/ledger/accounts/sales')).json()) as { balance: number };
      expect(balance.balance).toBe(0);
    });

    it('behind PgBouncer in session mode, undeclared, the worker finds its session settings refused, says so once, and still completes every job', async () => {
      // In session mode each client holds a server connection for as long as it is open:
      // enough of them for the engine's pool and its LISTEN connection, so nothing queues.
      const session = await startPgBouncer({ database: db.name, poolSize: 30, poolMode: 'session' });
      const lines: string[] = [];
      const logger = pino({ level: 'warn' }, { write: (line: string) => lines.push(line) });
      const engine: Onejob = createOnejob({ connectionString: session.url, config, logger, env: {} });
      try {
        const worker = engine.attempts.startWorker({ pollMs: 50 });
        const created = await Promise.all(
          Array.from({ length: 6 }, (_, i) =>
            engine.jobs.create({
              ownerId: 'acme',
              idempotencyKey: `session-pooler-${i}`,
              operation: 'charge',
              input: { amount: 5 },
            }),
          ),
        );
        for (const { job } of created) {
          await until(
            `job ${job.id} succeeded`,
            async () => (await engine.jobs.get('acme', job.id)).state === 'succeeded' || undefined,
          );
        }
        expect(lines.filter((l) => l.includes('refused the worker session settings'))).toHaveLength(1);
        await worker.stop();
      } finally {
        await engine.close();
        await session.stop();
      }
    });

    it('without a direct URL there is no LISTEN: every waiter is told to look on an interval, after one warning', async () => {
      const lines: string[] = [];
      const logger = pino({ level: 'warn' }, { write: (line: string) => lines.push(line) });
      const engine: Onejob = createOnejob({
        connectionString: bouncer.url,
        config: { providers: {}, operations: {}, database: { pollMs: 100 } },
        env: { ONEJOB_DATABASE_POOLER: 'transaction' },
        logger,
      });
      try {
        expect(engine.wakeups).toBeInstanceOf(PollingNotificationHub);
        expect(lines.filter((l) => l.includes('DATABASE_DIRECT_URL'))).toHaveLength(1);
        let looked = 0;
        const unlisten = await engine.wakeups.listen(OUTBOX_CHANNEL, (payload) => {
          if (payload === null) looked++;
        });
        await until('the relay told to look', async () => looked >= 2 || undefined);
        await unlisten();
        // A long-poll whose job no notification will ever name still wakes to re-read it.
        await engine.wakeups.waitForJob(randomUUID(), 600_000);
      } finally {
        await engine.close();
      }
    });
  },
);
