// One chaos run: a small onejob cluster on this machine (API, worker and relay processes,
// one PostgreSQL, a three-node NATS JetStream cluster, a fake payment provider), load from
// clients that double-click, retry and redeliver, faults from a seeded schedule, then a
// calm phase, a settle phase, a snapshot of the database and the checker's verdict.
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type pg from 'pg';
import { validateConfig } from '../src/engine/loadConfig.js';
import { contractHash } from '../src/providers/verification/contractHash.js';
import { sleep } from '../test/helpers/until.js';
import { type CheckReport, checkHistory } from './checker/checkHistory.js';
import {
  ADMIN_TOKEN_ENV,
  ATTEMPT_TIMEOUT_MS,
  chaosConfig,
  HEDGE_AFTER_MS,
  INFERENCE_OPERATIONS,
  WEBHOOK_SECRET_ENV,
  WEBHOOK_SOURCE,
} from './cluster/chaosConfig.js';
import { type OnejobFleet, startOnejobFleet } from './cluster/onejobFleet.js';
import { resilientPool } from './cluster/resilientPool.js';
import { type ChaosDatabase, startDatabase } from './cluster/startDatabase.js';
import {
  BACKUP_LLM,
  type FakeInferenceProvider,
  startFakeInferenceProvider,
  UNVERIFIED_LLM,
} from './cluster/startFakeInferenceProvider.js';
import { type FakePaymentProvider, startFakePaymentProvider } from './cluster/startFakePaymentProvider.js';
import { type NatsCluster, startNatsCluster } from './cluster/startNatsCluster.js';
import { buildFaultSchedule, type Role } from './faults/buildFaultSchedule.js';
import type { FaultKind } from './faults/faultKinds.js';
import { runFaults } from './faults/runFaults.js';
import { readBudgetUsage, takeSnapshot } from './history/takeSnapshot.js';
import type { ChaosHistory, DbSnapshot, Features, OperationContract } from './history/types.js';
import { httpCall } from './load/httpCall.js';
import { type EventConsumer, runEventConsumer } from './load/runEventConsumer.js';
import { API_KEYS, OWNERS, runLoadClients } from './load/runLoadClients.js';

/** The owner whose inference runs near its budget, and that budget (about three holds). */
export const BUDGETED_OWNER = OWNERS[1]!.owner;
export const BUDGET_LIMIT_MICROS = 100_000;

import { createRng } from './random/createRng.js';
import { formatSummary, type RunSummary, summarizeRun } from './report/summarizeRun.js';

export interface ChaosOptions {
  seed: number;
  /** Length of the fault phase. */
  faultMs: number;
  /** Load without faults after the fault phase. */
  calmMs: number;
  /** Longest wait for jobs and events to settle after the load stops. */
  settleMs?: number;
  processes?: Record<Role, number>;
  database?: 'system' | 'embedded';
  clients?: number;
  /** Pause between one client's intents (default 5 to 40 ms, random). */
  thinkMs?: number;
  /** Faults to inject; `false` runs load only (the scale runs). */
  faults?: boolean;
  /** Restricts the fault schedule to these kinds (`--faults`). */
  faultKinds?: readonly FaultKind[];
  /** Run a synchronous streaming standby beside the primary (`--replica`). */
  replica?: boolean;
  /** With `replica`: `local` makes replication asynchronous (commits do not wait for the standby). */
  synchronousCommit?: 'on' | 'local' | 'off';
  /** Library-mode processes running a code operation (default 1). */
  library?: number;
  /** Pure inference operations in the load (default true). */
  inference?: boolean;
  /** Share of job intents that are inference jobs (default 0.35). */
  inferenceShare?: number;
  /** Preload the process probe (RSS, event-loop delay) into every onejob process. */
  probes?: boolean;
  /** Node command-line flags for every onejob process (the soak pins V8's young generation). */
  nodeFlags?: string[];
  /** Shared load rate, read before every intent; see LoadOptions.pace. */
  pace?: { perSecond?: number };
  /**
   * Replaces the calm phase: runs while the load goes on (the soak samples the cluster
   * here), and the load stops when it resolves.
   */
  steady?: (ctx: {
    fleet: OnejobFleet;
    pool: pg.Pool;
    intents: () => number;
    log: (line: string) => void;
  }) => Promise<void>;
  resultsDir?: string;
  log?: (line: string) => void;
}

export interface ChaosOutcome {
  summary: RunSummary;
  report: CheckReport;
  history: ChaosHistory;
  snapshot: DbSnapshot;
  resultFile?: string;
}

export async function runChaos(o: ChaosOptions): Promise<ChaosOutcome> {
  const log = o.log ?? ((line: string) => process.stdout.write(`${line}\n`));
  const processes = o.processes ?? { api: 2, worker: 2, relay: 1 };
  const databaseKind = o.replica ? 'replicated' : (o.database ?? 'embedded');
  if (o.replica && o.database === 'system')
    throw new Error('--replica runs a primary and a standby of its own; it cannot use --database system');
  const dir = mkdtempSync(join(tmpdir(), 'onejob-chaos-'));
  const rng = createRng(o.seed);
  const webhookSecret = `whsec_${randomBytes(24).toString('base64')}`;
  let db: ChaosDatabase | undefined;
  let nats: NatsCluster | undefined;
  let provider: FakePaymentProvider | undefined;
  let models: FakeInferenceProvider | undefined;
  let fleet: OnejobFleet | undefined;
  let consumer: EventConsumer | undefined;
  let pool: pg.Pool | undefined;
  const library = o.library ?? 1;
  // The schedule is drawn before anything starts: a kind this run cannot inject is refused
  // at once, not after a minute of setup.
  const plan =
    o.faults === false
      ? []
      : buildFaultSchedule({
          seed: o.seed,
          durationMs: o.faultMs,
          processes,
          natsNodes: 3,
          postgresRestart: databaseKind !== 'system',
          postgresStall: databaseKind !== 'system',
          replica: o.replica === true,
          library,
          inference: o.inference !== false,
          ...(o.faultKinds ? { kinds: o.faultKinds } : {}),
        });
  try {
    log(`seed ${o.seed}: starting ${databaseKind} PostgreSQL, NATS cluster, provider in ${dir}`);
    db = await startDatabase(databaseKind, dir, {
      log,
      ...(o.synchronousCommit ? { synchronousCommit: o.synchronousCommit } : {}),
    });
    if (db.kind === 'replicated') log(`  primary and synchronous standby: ${db.url}`);
    nats = await startNatsCluster(dir);
    provider = await startFakePaymentProvider('pay', createRng(o.seed + 1));
    if (o.inference !== false)
      models = await startFakeInferenceProvider(createRng(o.seed + 2), {
        slowShare: 0.25,
        silentShare: 0.08,
        // Past the hedge delay, within the deadline: the hedge and the primary race.
        slowMs: { minMs: HEDGE_AFTER_MS + 50, maxMs: ATTEMPT_TIMEOUT_MS - 200 },
        lateMs: { minMs: ATTEMPT_TIMEOUT_MS + 100, maxMs: ATTEMPT_TIMEOUT_MS + 800 },
      });
    const config = chaosConfig({
      providerUrl: provider.url,
      natsUrl: nats.urls[0]!,
      stream: nats.stream,
      ...(models ? { inferenceBaseUrl: models.baseUrl } : {}),
    });
    const adminToken = randomBytes(24).toString('hex');
    const configPath = join(dir, 'onejob.json');
    writeFileSync(configPath, JSON.stringify(config, null, 2));
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? dir,
      DATABASE_URL: db.url,
      ONEJOB_API_KEYS: API_KEYS,
      [WEBHOOK_SECRET_ENV]: webhookSecret,
      [ADMIN_TOKEN_ENV]: adminToken,
    };
    log(`starting onejob processes ${JSON.stringify({ ...processes, library })}`);
    fleet = await startOnejobFleet({
      counts: { ...processes, library },
      env,
      configPath,
      cwd: dir,
      ...(o.probes ? { probes: true } : {}),
      ...(o.nodeFlags ? { nodeFlags: o.nodeFlags } : {}),
    });
    pool = resilientPool(db.harnessTarget, 3);
    consumer = await runEventConsumer({
      natsUrls: nats.urls,
      stream: nats.stream,
      databaseUrl: db.harnessTarget,
    });

    const history: ChaosHistory = {
      seed: o.seed,
      startedAt: 0,
      faultsEndedAt: 0,
      endedAt: 0,
      features: { worker: false, relay: false, consumerHelper: consumer.helper, inbox: false, ledger: false },
      calls: [],
      providerRequests: provider.requests,
      inferenceRequests: models?.requests ?? [],
      contracts: [],
      deliveries: consumer.deliveries,
      faults: [],
      rolledBack: [],
    };
    const record = history.calls.push.bind(history.calls);
    const liveFleet = fleet;
    const apis = () => liveFleet.apis().map((m) => ({ name: m.name, url: m.url! }));
    const libraries = () => liveFleet.libraries().map((m) => ({ name: m.name, url: m.url! }));
    history.features = {
      ...history.features,
      ...(await detectFeatures(apis()[0]!, pool, consumer, record, log)),
    };
    validateConfig(structuredClone(config), 'chaos config', env);
    if (models) {
      history.contracts = await verifyFallbacks(apis()[0]!, config, adminToken, log);
      history.features.inference = true;
    }
    history.features.library = library > 0;
    if (models) {
      // One owner runs near its budget: about three inference holds fit at once, so hedges
      // and concurrent calls meet refusals while the others' go on.
      await pool.query(
        `INSERT INTO onejob.budgets (owner_id, currency, limit_micros, period) VALUES ($1, 'USD', $2, 'day')
         ON CONFLICT (owner_id, currency) DO UPDATE SET limit_micros = excluded.limit_micros`,
        [BUDGETED_OWNER, BUDGET_LIMIT_MICROS],
      );
      history.budgetSamples = [];
    }

    const load = runLoadClients({
      seed: o.seed,
      clients: o.clients ?? 6,
      apis,
      features: history.features,
      webhookSecret,
      databaseUrl: db.harnessTarget,
      config,
      record,
      recordRollback: (owner, key) => history.rolledBack.push({ owner, key }),
      ...(models ? { inferenceOperations: Object.keys(INFERENCE_OPERATIONS) } : {}),
      ...(library > 0 ? { libraries } : {}),
      ...(o.pace ? { pace: o.pace } : {}),
      ...(o.inferenceShare !== undefined ? { inferenceShare: o.inferenceShare } : {}),
      ...(o.thinkMs !== undefined ? { thinkMs: o.thinkMs } : {}),
    });
    history.startedAt = Date.now();
    log(`fault phase: ${Math.round(o.faultMs / 1000)} s, ${plan.length} faults planned`);
    const faultsEnd = history.startedAt + o.faultMs;
    history.faults = await runFaults(
      plan,
      {
        fleet,
        nats,
        db,
        provider,
        ...(models ? { models } : {}),
        log,
        afterFault: async (f) => {
          const rows = history.budgetSamples && (await readBudgetUsage(pool!));
          if (rows) history.budgetSamples!.push({ at: Date.now(), after: `${f.kind} ${f.target}`, rows });
        },
      },
      history.startedAt,
      faultsEnd,
      () => false,
    );
    const left = faultsEnd - Date.now();
    if (left > 0) await sleep(left);
    // Every restart a fault began has finished by now, so a process found dead here died on
    // its own: say so, with its last words.
    const dead = liveFleet.members.filter((m) => !m.process.running);
    for (const m of dead)
      log(`  ${m.name} was found dead after the fault phase:\n${m.process.output().slice(-2000)}`);
    await fleet.reviveAll();
    history.faultsEndedAt = Date.now();
    if (o.steady) await o.steady({ fleet, pool, intents: () => load.intents(), log });
    else {
      log(`calm phase: ${Math.round(o.calmMs / 1000)} s`);
      await sleep(o.calmMs);
    }
    history.endedAt = Date.now();
    await load.stop();
    log(`load stopped after ${load.intents()} intents; settling`);
    const settled = await settle(pool, consumer, history.features, o.settleMs ?? 45_000, log);
    if (!settled) await explainUnsettled(pool, fleet, consumer, log);
    // Every process that writes stops before the last look at the database, and the relays
    // publish what they wrote meanwhile: a worker reconciling an unknown attempt (a job
    // that the settle above does not wait for) can commit its settlement event, and the
    // attempt's cost, at any time; one committed after the consumer stopped would look like
    // a lost event. A worker that stops posts the costs of the attempts it finished while
    // draining, so the second settle still waits for every cost to be posted.
    await Promise.all(
      fleet.members.filter((m) => m.role !== 'relay').map((m) => m.process.kill('SIGTERM', 20_000)),
    );
    if (settled) {
      const published = await settle(
        pool,
        consumer,
        { ...history.features, worker: false },
        o.settleMs ?? 45_000,
        log,
      );
      if (!published) await explainUnsettled(pool, fleet, consumer, log);
    }

    // The consumer stops before the snapshot: a delivery acked after the effects were read
    // would look like an ack without an effect.
    await consumer.stop();
    const snapshot = await takeSnapshot(pool, { helper: consumer.helper });
    const report = checkHistory(history, snapshot);
    const summary = summarizeRun(history, snapshot, report, { ...processes, library });
    void rng;
    let resultFile: string | undefined;
    if (o.resultsDir !== undefined) {
      mkdirSync(o.resultsDir, { recursive: true });
      resultFile = join(
        o.resultsDir,
        `chaos-${new Date().toISOString().replace(/[:.]/g, '-')}-seed${o.seed}.json`,
      );
      writeFileSync(
        resultFile,
        JSON.stringify(
          { summary, violations: report.violations.slice(0, 500), faults: history.faults },
          null,
          2,
        ),
      );
    }
    log(formatSummary(summary));
    if (report.violations.length) {
      for (const v of report.violations.slice(0, 20)) log(`  violation ${v.check}: ${v.detail}`);
      log(`seed ${o.seed} FAILED with ${report.violations.length} violations`);
    }
    return { summary, report, history, snapshot, ...(resultFile ? { resultFile } : {}) };
  } finally {
    await consumer?.stop().catch(() => undefined);
    await pool?.end().catch(() => undefined);
    await fleet?.stop().catch(() => undefined);
    await nats?.stop().catch(() => undefined);
    await provider?.close().catch(() => undefined);
    await models?.close().catch(() => undefined);
    await db?.close().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Verifies every fallback of the inference operations through the API, as an operator
 * would before the load starts: the backup must pass and the unverified provider must
 * fail (its answers break the contract while it is verified). Returns the contract hash
 * of each (operation, provider), which the checker judges verifications by.
 */
async function verifyFallbacks(
  api: { name: string; url: string },
  config: ReturnType<typeof chaosConfig>,
  adminToken: string,
  log: (line: string) => void,
): Promise<OperationContract[]> {
  const contracts: OperationContract[] = [];
  for (const [operation, { providers }] of Object.entries(INFERENCE_OPERATIONS)) {
    const op = config.operations[operation]!;
    const contractHashes: Record<string, string> = {};
    for (const name of providers) {
      contractHashes[name] = contractHash(op, config.providers[name]!);
      if (name === providers[0]) continue;
      const res = await fetch(`${api.url}/v1/providers/${name}/verify`, {
        method: 'POST',
        headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ operation }),
        signal: AbortSignal.timeout(30_000),
      });
      const report = (await res.json()) as { status?: string; summary?: string };
      const want = name === BACKUP_LLM ? 'verified' : name === UNVERIFIED_LLM ? 'failed' : undefined;
      log(`verification of ${name} for ${operation}: ${res.status} ${report.status ?? ''}`);
      if (want && report.status !== want)
        throw new Error(
          `verification of ${name} for ${operation} is ${report.status}, expected ${want}: ${report.summary}`,
        );
    }
    contracts.push({ operation, providers: [...providers], contractHashes });
  }
  return contracts;
}

/**
 * Which features this build has, found by using them, never assumed: a probe job must
 * leave `queued` (a worker ran it) and its `created` event must reach the consumer
 * (a relay published it); the inbox and ledger routes must exist.
 */
async function detectFeatures(
  api: { name: string; url: string },
  pool: pg.Pool,
  consumer: EventConsumer,
  record: (c: ChaosHistory['calls'][number]) => void,
  log: (line: string) => void,
): Promise<Omit<Features, 'consumerHelper'>> {
  const owner = OWNERS[0]!;
  const auth = { authorization: `Bearer ${owner.token}` };
  const inboxProbe = await httpCall(
    {
      client: 'probe',
      kind: 'get',
      owner: 'acme',
      key: 'probe',
      target: api,
      method: 'POST',
      path: `/v1/inbox/${WEBHOOK_SOURCE}`,
      body: '{}',
    },
    () => undefined,
  );
  const ledgerProbe = await httpCall(
    {
      client: 'probe',
      kind: 'get',
      owner: owner.owner,
      key: 'probe',
      target: api,
      method: 'GET',
      path: '/v1/ledger/accounts/cash',
      headers: auth,
    },
    () => undefined,
  );
  const created = await httpCall(
    {
      client: 'probe',
      kind: 'create',
      owner: owner.owner,
      key: 'probe-job',
      target: api,
      method: 'POST',
      path: '/v1/jobs',
      headers: { ...auth, 'idempotency-key': 'probe-job' },
      body: JSON.stringify({ operation: 'charge', input: { amount: 1 } }),
    },
    record,
  );
  const jobId = created.call.jobId;
  let worker = false;
  let relay = false;
  const deadline = Date.now() + 20_000;
  while (jobId && Date.now() < deadline && !(worker && relay)) {
    const { rows } = await pool.query<{ state: string }>('SELECT state FROM onejob.jobs WHERE id = $1', [
      jobId,
    ]);
    worker ||= rows[0]?.state !== undefined && rows[0].state !== 'queued';
    const events = await pool.query<{ id: string }>('SELECT id FROM onejob.outbox WHERE subject = $1', [
      jobId,
    ]);
    relay ||= events.rows.some((e) => consumer.seen().has(e.id));
    await sleep(250);
  }
  const features = {
    worker,
    relay,
    inbox: inboxProbe.call.code !== 'route_not_found' && inboxProbe.call.status !== 0,
    ledger: ledgerProbe.call.code !== 'route_not_found' && ledgerProbe.call.status !== 0,
  };
  for (const [k, v] of Object.entries(features))
    if (!v) log(`feature ${k} not found in this build: its checks are skipped`);
  return features;
}

/** Where undelivered events stand, and what the relays said last: printed when a run does not settle. */
async function explainUnsettled(
  pool: pg.Pool,
  fleet: OnejobFleet,
  consumer: EventConsumer,
  log: (l: string) => void,
) {
  try {
    log(`  stream and consumer ${JSON.stringify(await consumer.info())}`);
  } catch (error) {
    log(`  stream info unavailable: ${String(error)}`);
  }
  try {
    const { rows } = await pool.query(
      `SELECT publisher, state, count(*)::int AS n, max(attempts) AS max_attempts, min(next_attempt_at) AS next_due,
              left(max(last_error::text), 300) AS last_error
       FROM onejob.outbox_deliveries GROUP BY 1, 2 ORDER BY 1, 2`,
    );
    for (const r of rows) log(`  outbox ${JSON.stringify(r)}`);
  } catch (error) {
    log(`  outbox state unreadable: ${String(error)}`);
  }
  for (const m of fleet.members.filter((x) => x.role === 'relay')) {
    log(`  last output of ${m.name}:\n${m.process.output().slice(-3000)}`);
  }
}

/** Waits (bounded) until no job is queued or running and every committed event has been consumed. */
async function settle(
  pool: pg.Pool,
  consumer: EventConsumer,
  features: Features,
  maxMs: number,
  log: (l: string) => void,
): Promise<boolean> {
  // The wait is `maxMs` without progress: a consumer still catching up on a backlog built
  // under faults keeps the run settling (up to ten times as long), a stuck one does not.
  const hardStop = Date.now() + maxMs * 10;
  let deadline = Date.now() + maxMs;
  let best = Number.POSITIVE_INFINITY;
  for (;;) {
    let open = 0;
    let unseen = 0;
    try {
      // Finished attempts whose cost the poster (in the worker) has not put in the ledger yet.
      if (features.ledger)
        open += Number(
          (
            await pool.query(
              `SELECT count(*) AS n FROM onejob.attempts WHERE cost_micros > 0 AND cost_posted_at IS NULL
                 AND state IN ('succeeded', 'failed', 'lost_race', 'abandoned')`,
            )
          ).rows[0].n,
        );
      if (features.worker)
        open += Number(
          (await pool.query(`SELECT count(*) AS n FROM onejob.jobs WHERE state IN ('queued', 'running')`))
            .rows[0].n,
        );
      if (features.relay) {
        const { rows } = await pool.query<{ id: string }>('SELECT id FROM onejob.outbox');
        const seen = consumer.seen();
        unseen = rows.filter((r) => !seen.has(r.id)).length;
      }
    } catch {
      open = -1;
    }
    if (open === 0 && unseen === 0) return true;
    if (open >= 0 && open + unseen < best) {
      best = open + unseen;
      deadline = Math.min(hardStop, Date.now() + maxMs);
    }
    if (Date.now() > deadline) {
      log(
        `settle: gave up after ${maxMs} ms with ${open} open jobs or unposted attempt costs and ${unseen} unconsumed events`,
      );
      return false;
    }
    await sleep(500);
  }
}
