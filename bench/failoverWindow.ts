// How many acknowledged jobs a failover loses, with asynchronous and with synchronous
// replication. Each round starts a primary and a streaming standby (test/helpers/
// replicatedPostgres.ts), serves onejob on the host list, creates jobs from concurrent
// clients, SIGKILLs the primary under that load, promotes the standby, and looks up every
// job that was answered 202. A lost job is what a client sees afterwards: its id answers
// 404, and a retry with its key creates a new job under a new id.
//
// `--lag-ms N` holds the standby's WAL receiver (SIGSTOP) for the last N ms before the kill,
// as a slow network or a busy standby would: what the primary acknowledged meanwhile is
// on the primary alone.
//
//   node --import tsx bench/failoverWindow.ts [--rounds 3] [--sync-rounds 1] [--clients 32] [--load-ms 1500] [--lag-ms 0]
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { startService } from '../src/cli/serve/startService.js';
import { createLogger } from '../src/observability/createLogger.js';
import { startReplicatedPostgres } from '../test/helpers/replicatedPostgres.js';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    'sync-rounds': { type: 'string', default: '1' },
    clients: { type: 'string', default: '32' },
    'load-ms': { type: 'string', default: '1500' },
    'lag-ms': { type: 'string', default: '0' },
  },
});
const CLIENTS = Number(values.clients);
const LOAD_MS = Number(values['load-ms']);
const LAG_MS = Number(values['lag-ms']);

interface RoundResult {
  synchronous: boolean;
  acknowledged: number;
  lost: string[];
  /** What the service answers for a lost job's id, and whether a retry of its key gets a new id. */
  lostLookup?: { status: number; retryNewId: boolean };
  refusedDuringSwitch: number;
  walBehindBytes: string;
}

async function round(synchronous: boolean): Promise<RoundResult> {
  // Asynchronous: the standby streams, but a commit does not wait for it.
  const cluster = await startReplicatedPostgres({ synchronousCommit: synchronous ? 'on' : 'local' });
  const home = await mkdtemp(join(tmpdir(), 'onejob-failover-window-'));
  const token = `window-${randomBytes(12).toString('hex')}`;
  const service = await startService({
    roles: ['api'],
    homeDir: home,
    logger: createLogger('silent'),
    env: {
      DATABASE_URL: cluster.hostListUrl(),
      ONEJOB_API_KEYS: `${token}=owner-w`,
      PORT: '0',
      HOST: '127.0.0.1',
    },
  });
  const post = async (key: string) => {
    try {
      const res = await fetch(`${service.url}/v1/jobs`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'idempotency-key': key,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ operation: 'charge', input: { amount: 1 } }),
      });
      const body = (await res.json()) as { id?: string };
      return { status: res.status, id: body.id };
    } catch {
      return { status: 0, id: undefined };
    }
  };
  const acknowledged = new Map<string, string>();
  let refused = 0;
  let stopping = false;
  const clients = Array.from({ length: CLIENTS }, async (_, c) => {
    for (let i = 0; !stopping; i++) {
      const key = `c${c}-${i}`;
      const answer = await post(key);
      if (answer.status === 202 && answer.id) acknowledged.set(key, answer.id);
      else refused++;
      // Once the primary is gone every answer is a 503: no point spinning on them.
      if (answer.status !== 202) break;
    }
  });
  let receiver: number | undefined;
  if (LAG_MS > 0) {
    await new Promise((r) => setTimeout(r, Math.max(0, LOAD_MS - LAG_MS)));
    const [row] = await cluster.query<{ pid: number }>(
      cluster.standbyUrl(),
      'SELECT pid FROM pg_stat_wal_receiver',
    );
    receiver = row?.pid;
    if (receiver) process.kill(receiver, 'SIGSTOP');
    await new Promise((r) => setTimeout(r, LAG_MS));
  } else await new Promise((r) => setTimeout(r, LOAD_MS));
  // WAL the primary has written that the standby has not reported flushed, just before the kill.
  const [lag] = await cluster.query<{ behind: string | null }>(
    cluster.primaryUrl(),
    'SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), flush_lsn)::bigint::text AS behind FROM pg_stat_replication',
  );
  await cluster.killPrimary();
  if (receiver) process.kill(receiver, 'SIGCONT');
  stopping = true;
  await Promise.all(clients);
  await cluster.promoteStandby();

  const ids = [...acknowledged.values()];
  const client = new pg.Client({ connectionString: cluster.primaryUrl() });
  await client.connect();
  const { rows } = await client.query<{ id: string }>(
    'SELECT id::text FROM onejob.jobs WHERE id = ANY($1::uuid[])',
    [ids],
  );
  await client.end();
  const found = new Set(rows.map((r) => r.id));
  const lostKeys = [...acknowledged].filter(([, id]) => !found.has(id)).map(([key]) => key);
  let lostLookup: RoundResult['lostLookup'];
  if (lostKeys.length > 0) {
    const key = lostKeys[0]!;
    const res = await fetch(`${service.url}/v1/jobs/${acknowledged.get(key)}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    await res.body?.cancel();
    const retry = await post(key);
    lostLookup = {
      status: res.status,
      retryNewId: retry.status === 202 && retry.id !== acknowledged.get(key),
    };
  }
  await service.stop();
  await cluster.close();
  await rm(home, { recursive: true, force: true });
  return {
    synchronous,
    acknowledged: acknowledged.size,
    lost: lostKeys,
    lostLookup,
    refusedDuringSwitch: refused,
    walBehindBytes: lag?.behind ?? 'no standby',
  };
}

const results: RoundResult[] = [];
for (let i = 0; i < Number(values.rounds); i++) results.push(await round(false));
for (let i = 0; i < Number(values['sync-rounds']); i++) results.push(await round(true));
for (const r of results) {
  const lookup = r.lostLookup
    ? `; a lost job's id answers ${r.lostLookup.status}, a retry of its key ${r.lostLookup.retryNewId ? 'creates a new job' : 'does not create a new job'}`
    : '';
  console.log(
    `${r.synchronous ? 'synchronous ' : 'asynchronous'}  lag ${LAG_MS} ms  acknowledged ${String(r.acknowledged).padStart(5)}  ` +
      `lost ${String(r.lost.length).padStart(4)}  WAL behind at the kill ${r.walBehindBytes} B  refused at the kill ${r.refusedDuringSwitch}${lookup}`,
  );
}
