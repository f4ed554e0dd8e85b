// A real failover: a PostgreSQL 15 primary with a synchronous streaming standby, onejob
// serving with DATABASE_URL naming both, the primary SIGKILLed under load and the standby
// promoted. What the service acknowledged survives, once; nothing is charged twice.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningService, startService } from '../../src/cli/serve/startService.js';
import type { OnejobConfig } from '../../src/config/types.js';
import { connectToPrimary, NoSuitableHostError } from '../../src/db/connectToPrimary.js';
import { createPool } from '../../src/db/createPool.js';
import { isDatabaseUnavailable } from '../../src/db/sqlstate.js';
import { createLogger } from '../../src/observability/createLogger.js';
import { consumeOnce } from '../../src/outbox/consumeOnce.js';
import { exclusiveOnPay } from '../attempts/attemptTestKit.js';
import { type FakePaymentServer, Gate, startFakePaymentServer } from '../helpers/fakePaymentServer.js';
import { type ReplicatedPostgres, startReplicatedPostgres } from '../helpers/replicatedPostgres.js';
import { createTestDatabase, type TestDatabase } from '../helpers/testDatabase.js';
import { until } from '../helpers/until.js';

const TOKEN = `failover-${randomBytes(12).toString('hex')}`;
const SECRET_ENV = 'FAILOVER_TEST_WEBHOOK_SECRET';
const HELD_AMOUNT = 4242;

let cluster: ReplicatedPostgres;
let fake: FakePaymentServer;
let consumerDb: TestDatabase;
let consumerPool: pg.Pool;
let receiver: Server;
let service: RunningService | undefined;
let home: string;
const logs: string[] = [];
const paymentGate = new Gate();
/** Event ids the consumer applied (consumeOnce said applied), and every delivery it got. */
const applied: string[] = [];
const deliveries: string[] = [];
const eventsOfJob = new Map<string, Set<string>>();

beforeAll(async () => {
  cluster = await startReplicatedPostgres();
  fake = await startFakePaymentServer({
    script: (req) => {
      const amount = (req.body as { input?: { amount?: number } }).input?.amount;
      return {
        status: 200,
        body: { chargeId: `ch_${req.index}`, amount },
        gate: amount === HELD_AMOUNT ? paymentGate : undefined,
      };
    },
  });
  consumerDb = await createTestDatabase();
  consumerPool = new pg.Pool({ connectionString: consumerDb.url, max: 4 });
  // The event consumer: every delivery goes through consumeOnce in the consumer's own database.
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString('utf8');
    });
    req.on('end', async () => {
      const event = JSON.parse(body) as { id: string; type: string; subject: string };
      const client = await consumerPool.connect();
      try {
        await client.query('BEGIN');
        const outcome = await consumeOnce(client, 'failover-test', event, async () => {
          applied.push(event.id);
        });
        await client.query('COMMIT');
        deliveries.push(event.id);
        if (outcome.applied) {
          const set = eventsOfJob.get(event.subject) ?? new Set<string>();
          set.add(event.type);
          eventsOfJob.set(event.subject, set);
        }
        res.writeHead(200).end();
      } catch {
        await client.query('ROLLBACK').catch(() => undefined);
        res.writeHead(500).end();
      } finally {
        client.release();
      }
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  home = await mkdtemp(join(tmpdir(), 'onejob-failover-'));
}, 120_000);

afterAll(async () => {
  paymentGate.open();
  await service?.stop().catch(() => undefined);
  await new Promise((r) => receiver?.close(r));
  await consumerPool?.end();
  await consumerDb?.drop();
  await fake?.close();
  await cluster?.close();
  await rm(home, { recursive: true, force: true });
});

describe('connecting through a host list', () => {
  const list = (attrs: string) =>
    `postgres://postgres@127.0.0.1:${cluster.standbyPort},127.0.0.1:${cluster.primaryPort}/onejob?target_session_attrs=${attrs}`;
  const serverOf = async (pool: pg.Pool) =>
    (
      await pool.query<{ port: number; standby: boolean }>(
        'SELECT inet_server_port() AS port, pg_is_in_recovery() AS standby',
      )
    ).rows[0];

  it('read-write and primary pass over a standby listed first; any takes it', async () => {
    for (const [attrs, port] of [
      ['read-write', cluster.primaryPort],
      ['primary', cluster.primaryPort],
      ['any', cluster.standbyPort],
    ] as const) {
      const pool = createPool({ connectionString: list(attrs), max: 2 });
      try {
        expect(await serverOf(pool)).toMatchObject({ port, standby: port === cluster.standbyPort });
      } finally {
        await pool.end();
      }
      const client = await connectToPrimary(list(attrs));
      try {
        expect((await client.query('SELECT inet_server_port() AS port')).rows[0].port).toBe(port);
      } finally {
        await client.end();
      }
    }
  });

  it('with no host fit for writing, a checkout fails as "database unavailable", naming every host', async () => {
    const url = `postgres://postgres@127.0.0.1:${cluster.standbyPort}/onejob?target_session_attrs=read-write`;
    const pool = createPool({ connectionString: url, max: 1 });
    try {
      const error = await pool.query('SELECT 1').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(NoSuitableHostError);
      expect(isDatabaseUnavailable(error)).toBe(true);
      expect((error as Error).message).toContain(`127.0.0.1:${cluster.standbyPort}: the server is a standby`);
    } finally {
      await pool.end();
    }
  });
});

interface Answer {
  status: number;
  id?: string;
  retryAfter: string | null;
  contentType: string | null;
  replayed: boolean;
}

async function post(key: string, amount: number): Promise<Answer> {
  const res = await fetch(`${service!.url}/v1/jobs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'idempotency-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({ operation: 'charge', input: { amount } }),
  });
  const body = (await res.json()) as { id?: string };
  return {
    status: res.status,
    id: body.id,
    retryAfter: res.headers.get('retry-after'),
    contentType: res.headers.get('content-type'),
    replayed: res.headers.get('idempotent-replayed') === 'true',
  };
}

async function jobState(id: string): Promise<string | undefined> {
  const res = await fetch(`${service!.url}/v1/jobs/${id}?waitMs=2000`, {
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  if (res.status !== 200) return undefined;
  return ((await res.json()) as { state: string }).state;
}

describe('a primary failover with synchronous replication', () => {
  it('keeps every acknowledged job once, answers 503 with Retry-After meanwhile, charges nobody twice and delivers every event', async () => {
    const config: OnejobConfig = {
      providers: { pay: { kind: 'http', url: fake.chargeUrl, idempotent: true, statusUrl: fake.statusUrl } },
      operations: {
        charge: exclusiveOnPay({ attemptTimeoutMs: 20_000, maxAttempts: 3 }),
      },
      worker: { leaseMs: 1_000, pollMs: 20 },
      outbox: {
        publishers: [
          {
            kind: 'webhook',
            url: `http://127.0.0.1:${(receiver.address() as { port: number }).port}/events`,
            secretEnv: SECRET_ENV,
            retryBaseMs: 20,
            retryMaxMs: 200,
          },
        ],
        pollMs: 50,
      },
    };
    const configPath = join(home, 'config.json');
    await writeFile(configPath, JSON.stringify(config));
    const logger = createLogger('info', {
      write: (line: string) => {
        logs.push(line);
      },
    });
    service = await startService({
      configPath,
      homeDir: home,
      logger,
      env: {
        DATABASE_URL: cluster.hostListUrl('read-write'),
        ONEJOB_API_KEYS: `${TOKEN}=owner-f`,
        PORT: '0',
        HOST: '127.0.0.1',
        [SECRET_ENV]: `whsec_${randomBytes(32).toString('base64')}`,
      },
    });

    // Load before the failover: jobs that finish, and one charge held at the provider.
    const acknowledged = new Map<string, string>();
    for (let i = 0; i < 12; i++) {
      const answer = await post(`before-${i}`, 100 + i);
      expect(answer.status).toBe(202);
      acknowledged.set(`before-${i}`, answer.id!);
    }
    const held = await post('held', HELD_AMOUNT);
    expect(held.status).toBe(202);
    acknowledged.set('held', held.id!);
    await fake.waitForRequests(
      1,
      (r) => (r.body as { input?: { amount?: number } })?.input?.amount === HELD_AMOUNT,
    );

    // Requests racing the kill: each is acknowledged (then it must survive) or refused with 503.
    const racing = Array.from({ length: 8 }, (_, i) => post(`racing-${i}`, 200 + i));
    await cluster.killPrimary();
    const raced = await Promise.all(racing);
    for (const [i, answer] of raced.entries()) {
      expect([202, 503]).toContain(answer.status);
      if (answer.status === 202) acknowledged.set(`racing-${i}`, answer.id!);
    }

    // During the switch: the old primary is gone and the standby is read-only.
    for (let i = 0; i < 3; i++) {
      const answer = await post(`during-${i}`, 300 + i);
      expect(answer).toMatchObject({ status: 503, retryAfter: '1' });
      expect(answer.contentType).toContain('application/problem+json');
    }
    // The provider answers the held charge now; the worker cannot record it anywhere.
    paymentGate.open();
    await until('the held attempt interrupted by the outage', async () =>
      logs.some((l) => l.includes('attempt interrupted: database unavailable')),
    );

    await cluster.promoteStandby();

    // Clients retry what was refused, with the same keys, until the new primary answers.
    const retried = [...raced.keys()].map((i) => `racing-${i}`).concat(['during-0', 'during-1', 'during-2']);
    for (const key of retried) {
      const amount = key.startsWith('racing') ? 200 + Number(key.slice(7)) : 300 + Number(key.slice(7));
      const answer = await until(`${key} accepted after the failover`, async () => {
        const a = await post(key, amount);
        expect([202, 503]).toContain(a.status);
        return a.status === 202 ? a : undefined;
      });
      if (acknowledged.has(key)) expect(answer.id).toBe(acknowledged.get(key));
      acknowledged.set(key, answer.id!);
    }
    // A retry of anything acknowledged before gets the same job.
    for (const [key, id] of acknowledged) {
      if (!key.startsWith('before-')) continue;
      const again = await post(key, 100 + Number(key.slice(7)));
      expect(again).toMatchObject({ status: 202, id, replayed: true });
    }

    // Every job settles; the held one through lease expiry and reconciliation, not a second charge.
    for (const [key, id] of acknowledged) {
      await until(`${key} succeeded`, async () => (await jobState(id)) === 'succeeded');
    }
    const primary = new pg.Client({ connectionString: cluster.primaryUrl() });
    await primary.connect();
    try {
      const { rows } = await primary.query<{ idempotency_key: string; ids: string[] }>(
        `SELECT idempotency_key, array_agg(id::text) AS ids FROM onejob.jobs WHERE owner_id = 'owner-f' GROUP BY 1`,
      );
      const byKey = new Map(rows.map((r) => [r.idempotency_key, r.ids]));
      for (const [key, id] of acknowledged) expect(byKey.get(key)).toEqual([id]);
      const heldAttempts = await primary.query<{ state: string }>(
        'SELECT state FROM onejob.attempts WHERE job_id = $1 ORDER BY n',
        [held.id],
      );
      expect(heldAttempts.rows.map((r) => r.state)).toEqual(['succeeded']);
    } finally {
      await primary.end();
    }
    const calls = new Map<string, number>();
    for (const call of fake.calls()) {
      const key = String(call.headers['idempotency-key']);
      calls.set(key, (calls.get(key) ?? 0) + 1);
    }
    for (const id of acknowledged.values()) expect(calls.get(id)).toBe(1);

    // Every job's created and succeeded events reach the consumer; each is applied once.
    await until('every event consumed', async () =>
      [...acknowledged.values()].every((id) => {
        const types = eventsOfJob.get(id);
        return types?.has('onejob.job.created') && types.has('onejob.job.succeeded');
      }),
    );
    expect(new Set(applied).size).toBe(applied.length);
    expect(new Set(deliveries)).toEqual(new Set(applied));

    // The process's LISTEN session is on the new primary and hears what is notified there.
    await until('the listener on the new primary', async () => {
      const rows = await cluster.query<{ n: number }>(
        cluster.primaryUrl(),
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'onejob-listen'`,
      );
      return rows[0]?.n === 1;
    });
    const heard: (string | null)[] = [];
    // What happened, for the reader of the test output (not asserted: it varies with timing).
    const racedAcknowledged = raced.filter((a) => a.status === 202).length;
    const reconciled = logs.filter((l) => l.includes('"msg":"reconciliation"')).length;
    console.info(
      `failover: ${acknowledged.size} jobs acknowledged and kept; ${racedAcknowledged} of ${raced.length} requests racing the kill acknowledged before it, ` +
        `the rest refused with 503 and accepted on retry; ${reconciled} interrupted attempts reconciled; ` +
        `${deliveries.length} deliveries for ${applied.length} events`,
    );
    const unlisten = await service.onejob.wakeups.listen('onejob_failover_probe', (payload) => {
      heard.push(payload);
    });
    try {
      await cluster.query(
        cluster.primaryUrl(),
        `SELECT pg_notify('onejob_failover_probe', 'after-failover')`,
      );
      await until('the notification heard', async () => heard.includes('after-failover'));
    } finally {
      await unlisten();
    }
  });

  it('a second failover, back to the first host of the list, keeps what was acknowledged too', async () => {
    // The dead primary comes back as a synchronous standby of the new one.
    await cluster.rejoinStandby();
    const acknowledged = new Map<string, string>();
    for (let i = 0; i < 5; i++) {
      const answer = await post(`second-${i}`, 500 + i);
      expect(answer.status).toBe(202);
      acknowledged.set(`second-${i}`, answer.id!);
    }
    await cluster.killPrimary();
    expect(await post('second-during', 600)).toMatchObject({ status: 503, retryAfter: '1' });
    await cluster.promoteStandby();
    const accepted = await until('a create accepted on the first host again', async () => {
      const a = await post('second-during', 600);
      expect([202, 503]).toContain(a.status);
      return a.status === 202 ? a : undefined;
    });
    acknowledged.set('second-during', accepted.id!);
    for (const [key, id] of acknowledged) {
      expect(await post(key, key === 'second-during' ? 600 : 500 + Number(key.slice(7)))).toMatchObject({
        status: 202,
        id,
        replayed: true,
      });
      await until(`${key} succeeded`, async () => (await jobState(id)) === 'succeeded');
    }
    const rows = await cluster.query<{ n: number }>(
      cluster.primaryUrl(),
      `SELECT count(*)::int AS n FROM onejob.jobs WHERE idempotency_key LIKE 'second-%'`,
    );
    expect(rows[0]?.n).toBe(acknowledged.size);
    await until('the listener on the first host again', async () => {
      const listening = await cluster.query<{ n: number }>(
        cluster.primaryUrl(),
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'onejob-listen'`,
      );
      return listening[0]?.n === 1;
    });
  });
});
