// Runs every scenario in one process tree on one machine, so each number is read next to
// the raw limit and the peers it is compared with.

import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import { describeBatchTimings, readBatchTimings, summarizeBatchTimings } from './batchTimings.js';
import { benchConfig } from './benchConfig.js';
import {
  type BenchDatabase,
  benchRunId,
  checkpoint,
  createBenchDatabase,
  postgresVersion,
} from './benchDatabase.js';
import type { BenchOptions } from './benchOptions.js';
import type { BenchRun, ScenarioRecord } from './benchResult.js';
import { evaluateTargets } from './evaluateTargets.js';
import { formatTable } from './formatTable.js';
import { startHttpLoadClient } from './httpLoadClient.js';
import { type HttpScenarioResult, jobPoster } from './httpLoadWorker.js';
import type { LoadResult } from './measureLoad.js';
import { silentProgress, stderrProgress } from './progress.js';
import { bareHttpReplay } from './scenarios/bareHttp.js';
import { inboxLoad, transfersLoad } from './scenarios/batchedPaths.js';
import { claimComplete, claimCompleteUnavailable } from './scenarios/claimComplete.js';
import { onejobDrainCost } from './scenarios/drainCost.js';
import { onejobSteadyLatency } from './scenarios/endToEnd.js';
import { jetstreamPublish } from './scenarios/jetstreamPublish.js';
import { libraryCreate } from './scenarios/libraryCreate.js';
import { ownersInTurn } from './scenarios/ownersInTurn.js';
import {
  graphileAddJob,
  graphileDrainCost,
  graphileNoop,
  graphileSteadyLatency,
  pgBossSend,
} from './scenarios/peers.js';
import { pgbenchCreate, pgbenchCreateBatch, pgbenchLookup } from './scenarios/pgbench.js';
import { poolerIntake, poolerUnavailable } from './scenarios/poolerIntake.js';
import { queueJobs, rawClaimComplete, registerPublisher, setBenchBudget } from './scenarios/rawSql.js';
import { relayThroughput, relayUnavailable } from './scenarios/relayThroughput.js';
import { BENCH_TOKEN, ROOT, type ServerProcess, startServer } from './serverProcess.js';

/** Jobs seeded per intake database for the replay scenarios (b) and the raw lookup. */
const REPLAY_KEYS = 5_000;

export const SCENARIO_IDS = [
  'a64',
  'a16',
  'b',
  'c',
  'b-http',
  'd',
  'd-cold',
  'd-owners',
  'd-budget',
  'd-priced',
  'fair',
  'd-cost',
  'g-gw-cost',
  'l-e2e',
  'g-gw-e2e',
  'e',
  'e-raw',
  'f-create',
  'f-create-batch',
  'f-lookup',
  'f-claim',
  'g-lib-create',
  'g-pgboss',
  'g-gw-add',
  'g-gw-noop',
  'h-transfers',
  'h-transfers-alone',
  'h-transfers-hot',
  'h-transfers-hot-alone',
  'h-inbox',
  'h-inbox-alone',
  'i-direct',
  'i-pgbouncer',
];

export interface BenchOutcome {
  run: BenchRun;
  table: string;
  jsonPath: string;
}

async function machine(adminUrl: string): Promise<BenchRun['machine']> {
  const meminfo = await readFile('/proc/meminfo', 'utf8').catch(() => '');
  const kb = Number(/MemTotal:\s+(\d+)/.exec(meminfo)?.[1] ?? Number.NaN);
  return {
    nproc: os.availableParallelism(),
    cpu: os.cpus()[0]?.model ?? 'unknown',
    memTotalMb: Math.round(kb / 1024),
    node: process.version,
    postgres: await postgresVersion(adminUrl),
    kernel: `${os.type()} ${os.release()}`,
  };
}

export async function runBench(o: BenchOptions): Promise<BenchOutcome> {
  for (const id of o.only)
    if (!SCENARIO_IDS.includes(id))
      throw new Error(`--only: unknown scenario "${id}" (${SCENARIO_IDS.join(', ')})`);
  const wanted = (...ids: string[]) => o.only.length === 0 || ids.some((id) => o.only.includes(id));
  const progress = o.progress ? stderrProgress() : silentProgress;
  const startedAt = new Date();
  const run = benchRunId();
  const workDir = await mkdtemp(join(os.tmpdir(), `onejob-bench-${run}-`));
  const databases: BenchDatabase[] = [];
  const scenarios: ScenarioRecord[] = [];
  const freshDatabase = async (tag: string) => {
    const db = await createBenchDatabase(o.adminUrl, run, tag);
    databases.push(db);
    return db;
  };
  const timing = { warmupMs: o.warmupMs, durationMs: o.durationMs, progress };
  /** How every scenario that starts `onejob serve` runs it. */
  const served = { workDir, logLevel: o.logLevel, server: o.server, workerConcurrency: o.workerConcurrency };

  /** Runs one scenario, recording a failure instead of aborting the whole bench. */
  const scenario = async (
    id: string,
    title: string,
    concurrency: number | undefined,
    fn: () => Promise<LoadResult & { note?: string; extra?: Record<string, unknown> }>,
    server?: ServerProcess,
  ): Promise<ScenarioRecord | undefined> => {
    if (!wanted(id)) return undefined;
    progress.note(`[${id}] ${title}`);
    const stopRss = server?.sampleRss();
    const record: ScenarioRecord = { id, title, status: 'ok' };
    if (concurrency !== undefined) record.concurrency = concurrency;
    try {
      const { note, extra, ...result } = await fn();
      record.result = result;
      if (note) record.note = note;
      if (extra) {
        const { serverRssMb, ...rest } = extra;
        if (typeof serverRssMb === 'number') record.serverRssMb = serverRssMb;
        record.extra = rest;
      }
      if (result.errors > 0)
        record.note = [record.note, `${result.errors} errors, first: ${result.firstError}`]
          .filter(Boolean)
          .join('; ');
    } catch (error) {
      record.status = 'failed';
      record.note = error instanceof Error ? error.message : String(error);
    }
    if (stopRss) record.serverRssMb = stopRss();
    scenarios.push(record);
    return record;
  };
  const skipped = (id: string, title: string, note: string) => {
    if (wanted(id)) scenarios.push({ id, title, status: 'skipped', note });
  };

  try {
    // Intake over HTTP (a, b, c) against `onejob serve --role api`, then the same
    // statements from pgbench (f) and onejob in-process (g-lib-create) on the same database.
    if (wanted('a64', 'a16', 'b', 'c', 'f-create', 'f-create-batch', 'f-lookup', 'g-lib-create')) {
      const db = await freshDatabase('intake');
      await queueJobs(db.url, REPLAY_KEYS, 'seed-');
      // As in a deployment with a relay: a publisher with a position in the event log.
      await registerPublisher(db.url, 'nats');
      if (wanted('a64', 'a16', 'b', 'b-http', 'c')) {
        progress.note('starting onejob serve --role api');
        const server = await startServer({
          databaseUrl: db.url,
          config: benchConfig({ workerConcurrency: o.workerConcurrency, intake: o.intake }),
          roles: 'api',
          logFile: join(workDir, 'server-api.log'),
          logLevel: o.logLevel,
          workDir,
          server: o.server,
        });
        const client = startHttpLoadClient();
        // onejob's reply to a replay, which the bare server (b-http) sends as its own.
        let replayReply = '';
        const http = (
          kind: 'create' | 'replay' | 'storm',
          label: string,
          concurrency: number,
          keyPrefix: string,
        ) =>
          client.run({
            kind,
            label,
            url: server.url,
            token: BENCH_TOKEN,
            concurrency,
            warmupMs: o.warmupMs,
            durationMs: o.durationMs,
            progress: o.progress,
            keyPrefix,
            keyCount: REPLAY_KEYS,
            stormSize: o.stormSize,
          } as never) as Promise<HttpScenarioResult>;
        try {
          try {
            const poster = jobPoster({ url: server.url, token: BENCH_TOKEN, sockets: 1 });
            replayReply = (await poster.post('seed-0', true)).body;
            poster.close();
            // Creates with the server's own split of their time: gathering against PostgreSQL.
            const timedCreates = async (label: string, concurrency: number, keyPrefix: string) => {
              const before = await readBatchTimings(server.url);
              const result = await http('create', label, concurrency, keyPrefix);
              const batches = summarizeBatchTimings(before, await readBatchTimings(server.url));
              return { ...result, note: describeBatchTimings(batches), extra: { batches } };
            };
            await scenario(
              'a64',
              'create, unique keys, HTTP',
              o.concurrency,
              async () => {
                const r = await timedCreates('create c64', o.concurrency, 'a64-');
                return { ...r, extra: { ...r.extra, serverIdleRssMb: server.idleRssMb } };
              },
              server,
            );
            await scenario(
              'a16',
              'create, unique keys, HTTP (latency)',
              o.latencyConcurrency,
              () => timedCreates('create c16', o.latencyConcurrency, 'a16-'),
              server,
            );
            await scenario(
              'b',
              'replay of existing keys, HTTP',
              o.concurrency,
              async () => {
                const r = await http('replay', 'replay', o.concurrency, 'seed-');
                return { ...r, extra: { replayed: r.replayed } };
              },
              server,
            );
            await scenario(
              'c',
              `double-click storm, ${o.stormSize} identical requests per key`,
              o.stormSize,
              async () => {
                const r = await http('storm', 'storm', o.stormSize, 'c-');
                return {
                  ...r,
                  note: `${r.stormKeys} keys, ${r.stormViolations} with more than one job or creation`,
                  extra: { stormKeys: r.stormKeys, stormViolations: r.stormViolations },
                };
              },
              server,
            );
          } finally {
            await server.stop();
          }
          await scenario(
            'b-http',
            "the HTTP ceiling: a bare Fastify server sends onejob's replay reply, nothing else",
            o.concurrency,
            () =>
              bareHttpReplay({
                client,
                body: replayReply,
                concurrency: o.concurrency,
                warmupMs: o.warmupMs,
                durationMs: o.durationMs,
                progress: o.progress,
                keyCount: REPLAY_KEYS,
              }),
          );
        } finally {
          client.close();
        }
      }
      const raw = { url: db.url, concurrency: o.concurrency, ...timing };
      await scenario(
        'f-create',
        'pgbench: the create statement, one job per transaction',
        o.concurrency,
        () => pgbenchCreate(raw),
      );
      await scenario(
        'f-create-batch',
        `pgbench: the group-commit statement, ${o.concurrency} jobs per transaction`,
        o.concurrency,
        () => pgbenchCreateBatch(raw, o.concurrency),
      );
      await scenario('f-lookup', 'pgbench: lookup by (owner, key)', o.concurrency, () =>
        pgbenchLookup(raw, 'seed-', REPLAY_KEYS),
      );
      await scenario('g-lib-create', 'onejob jobs.create in-process (library)', o.concurrency, () =>
        libraryCreate(
          { ...raw, poolSize: o.poolSize, workerConcurrency: o.workerConcurrency, intake: o.intake },
          'g-lib-',
        ),
      );
    }

    if (wanted('f-claim')) {
      const db = await freshDatabase('claim');
      await queueJobs(db.url, o.queueJobs, 'q-');
      await scenario('f-claim', 'raw SKIP LOCKED claim + CAS complete + outbox', o.claimConcurrency, () =>
        rawClaimComplete({ url: db.url, concurrency: o.claimConcurrency, poolSize: o.poolSize, ...timing }),
      );
    }

    // graphile-worker's drain, on a database of its own like the onejob worker's (d): the
    // jobs g-gw-add leaves queued would otherwise sit in front of every fetch it makes. It
    // runs between onejob's two drains, so that the machine's drift over a run (it is
    // shared) weighs on both ratios alike, and neither onejob drain runs right after the
    // other.
    let graphileDrained = false;
    const graphileDrain = async () => {
      if (graphileDrained || !wanted('g-gw-noop')) return;
      graphileDrained = true;
      const db = await freshDatabase('graphile_drain');
      const peer = { url: db.url, concurrency: o.concurrency, poolSize: o.poolSize, ...timing };
      await scenario(
        'g-gw-noop',
        'graphile-worker 0.16 running no-op jobs (pre-queued)',
        o.workerConcurrency,
        () =>
          graphileNoop({
            ...peer,
            workerConcurrency: o.workerConcurrency,
            queueJobs: o.queueJobs,
            logFile: join(workDir, 'graphile-worker-drain.log'),
          }),
      );
    };

    // The worker's drain of a filled queue (claimComplete.ts), priced or not.
    const drainOf =
      (databaseUrl: string, priced = false) =>
      () =>
        claimComplete({
          databaseUrl,
          ...served,
          queueJobs: o.queueJobs,
          priced,
          ...timing,
        });

    // The same drain twice: after ANALYZE, and on tables that have no statistics at all
    // (a worker started on a freshly filled queue keeps the plans it makes then).
    for (const [id, statistics, title] of [
      ['d', 'analyse', 'drain a pre-filled queue, analysed (onejob worker)'],
      ['d-cold', 'none', 'drain after bulk enqueue, no ANALYZE (onejob worker)'],
    ] as const) {
      if (id === 'd-cold') await graphileDrain();
      if (!wanted(id)) continue;
      const unavailable = await claimCompleteUnavailable();
      if (unavailable) {
        skipped(id, title, unavailable);
        continue;
      }
      const db = await freshDatabase(id === 'd' ? 'worker' : 'worker_cold');
      await queueJobs(db.url, o.queueJobs, 'q-', statistics);
      await checkpoint(db.url);
      await scenario(id, title, o.workerConcurrency, drainOf(db.url));
    }

    await graphileDrain();

    // The drain of d with a priced provider: every attempt holds its cost before the call,
    // and the outcome posts it. d-priced: the owner has no budget (the hold limits nothing);
    // d-budget: a budget far above the run's spending, so every hold is checked and fits.
    for (const [id, budget, title] of [
      ['d-priced', false, 'drain of d, priced provider, owner without a budget (a hold per attempt)'],
      ['d-budget', true, 'drain of d, priced provider, owner with a budget (a checked hold per attempt)'],
    ] as const) {
      if (!wanted(id)) continue;
      const unavailable = await claimCompleteUnavailable();
      if (unavailable) {
        skipped(id, title, unavailable);
        continue;
      }
      const db = await freshDatabase(id.replace('-', '_'));
      await queueJobs(db.url, o.queueJobs, 'q-', 'analyse');
      if (budget) await setBenchBudget(db.url);
      await checkpoint(db.url);
      await scenario(id, title, o.workerConcurrency, drainOf(db.url, true));
    }

    // The same drain with the queue spread over 100 owners in turn (the claim serves them
    // round-robin), and owner B's new jobs timed while owner A's backlog drains.
    if (wanted('d-owners', 'fair')) {
      const unavailable = await claimCompleteUnavailable();
      const ownersTitle = 'drain a pre-filled queue of 100 owners, interleaved, analysed (onejob worker)';
      const fairTitle = `owner B's jobs, create → settled, while owner A's ${o.fairBacklog} queued jobs drain (onejob worker)`;
      if (unavailable) {
        skipped('d-owners', ownersTitle, unavailable);
        skipped('fair', fairTitle, unavailable);
      } else {
        if (wanted('d-owners')) {
          const db = await freshDatabase('owners');
          await queueJobs(db.url, o.queueJobs, 'q-', 'analyse', 100);
          await checkpoint(db.url);
          await scenario('d-owners', ownersTitle, o.workerConcurrency, drainOf(db.url));
        }
        if (wanted('fair')) {
          const db = await freshDatabase('fair');
          await queueJobs(db.url, o.fairBacklog, 'a-');
          await checkpoint(db.url);
          await scenario('fair', fairTitle, o.workerConcurrency, () =>
            ownersInTurn({
              databaseUrl: db.url,
              ...served,
              backlog: o.fairBacklog,
              jobs: 20,
              everyMs: 50,
              progress,
            }),
          );
        }
      }
    }

    // Rows and WAL one job writes, side by side with graphile-worker's.
    if (wanted('d-cost')) {
      const unavailable = await claimCompleteUnavailable();
      const title = `rows and WAL per job, claim to settled and published, ${o.costJobs} jobs (onejob)`;
      if (unavailable) skipped('d-cost', title, unavailable);
      else {
        const db = await freshDatabase('cost');
        await scenario('d-cost', title, o.workerConcurrency, () =>
          onejobDrainCost({
            databaseUrl: db.url,
            ...served,
            jobs: o.costJobs,
          }),
        );
      }
    }
    if (wanted('g-gw-cost')) {
      const db = await freshDatabase('graphile_cost');
      await scenario(
        'g-gw-cost',
        `rows and WAL per job, enqueued to done, ${o.costJobs} jobs (graphile-worker 0.16)`,
        o.workerConcurrency,
        () =>
          graphileDrainCost({
            url: db.url,
            concurrency: o.concurrency,
            poolSize: o.poolSize,
            ...timing,
            workerConcurrency: o.workerConcurrency,
            jobs: o.costJobs,
          }),
      );
    }

    // Create to settled at a steady arrival rate, next to graphile-worker's addJob to done.
    if (wanted('l-e2e')) {
      const unavailable = await claimCompleteUnavailable();
      const title = `create → settled at ${o.steadyRate} jobs/s, HTTP (onejob api,worker)`;
      if (unavailable) skipped('l-e2e', title, unavailable);
      else {
        const db = await freshDatabase('e2e');
        await scenario('l-e2e', title, o.workerConcurrency, () =>
          onejobSteadyLatency({
            databaseUrl: db.url,
            ...served,
            rate: o.steadyRate,
            ...timing,
          }),
        );
      }
    }
    if (wanted('g-gw-e2e')) {
      const db = await freshDatabase('graphile_e2e');
      await scenario(
        'g-gw-e2e',
        `addJob → done at ${o.steadyRate} jobs/s (graphile-worker 0.16)`,
        o.workerConcurrency,
        () =>
          graphileSteadyLatency({
            url: db.url,
            concurrency: o.concurrency,
            poolSize: o.poolSize,
            ...timing,
            workerConcurrency: o.workerConcurrency,
            rate: o.steadyRate,
            logFile: join(workDir, 'graphile-worker-steady.log'),
          }),
      );
    }

    await scenario('e-raw', 'raw JetStream publish with Nats-Msg-Id', o.concurrency, () =>
      jetstreamPublish({ natsUrl: o.natsUrl, concurrency: o.concurrency, ...timing }),
    );

    if (wanted('e')) {
      const unavailable = await relayUnavailable();
      if (unavailable) skipped('e', 'relay committed events to JetStream', unavailable);
      else {
        const db = await freshDatabase('relay');
        await scenario('e', 'relay committed events to JetStream', undefined, () =>
          relayThroughput({
            databaseUrl: db.url,
            natsUrl: o.natsUrl,
            ...served,
            // The relay publishes a small backlog faster than any drain works through its
            // queue: five times the queue keeps it publishing when its window opens.
            events: 5 * o.queueJobs,
            ...timing,
          }),
        );
      }
    }

    if (wanted('g-pgboss', 'g-gw-add')) {
      const db = await freshDatabase('peers');
      const peer = { url: db.url, concurrency: o.concurrency, poolSize: o.poolSize, ...timing };
      await scenario('g-pgboss', 'pg-boss 10 send, singletonKey + singletonSeconds', o.concurrency, () =>
        pgBossSend(peer),
      );
      await scenario('g-gw-add', "graphile-worker 0.16 addJob, jobKey, 'unsafe_dedupe'", o.concurrency, () =>
        graphileAddJob(peer),
      );
    }

    if (
      wanted(
        'h-transfers',
        'h-transfers-alone',
        'h-transfers-hot',
        'h-transfers-hot-alone',
        'h-inbox',
        'h-inbox-alone',
      )
    ) {
      const db = await freshDatabase('batched');
      const h = (batched: boolean) => ({
        url: db.url,
        concurrency: o.concurrency,
        poolSize: o.poolSize,
        workerConcurrency: o.workerConcurrency,
        batched,
        ...timing,
      });
      await scenario('h-transfers', 'ledger transfers in-process, group commit', o.concurrency, () =>
        transfersLoad(h(true), 'h-tb-'),
      );
      await scenario(
        'h-transfers-alone',
        'ledger transfers in-process, one per transaction',
        o.concurrency,
        () => transfersLoad(h(false), 'h-ta-'),
      );
      await scenario(
        'h-transfers-hot',
        'ledger transfers into one account, group commit',
        o.concurrency,
        () => transfersLoad(h(true), 'h-thb-', 'hot'),
      );
      await scenario(
        'h-transfers-hot-alone',
        'ledger transfers into one account, one per transaction',
        o.concurrency,
        () => transfersLoad(h(false), 'h-tha-', 'hot'),
      );
      await scenario('h-inbox', 'signed webhook deliveries in-process, group commit', o.concurrency, () =>
        inboxLoad(h(true), 'h-ib-'),
      );
      await scenario(
        'h-inbox-alone',
        'signed webhook deliveries in-process, one per transaction',
        o.concurrency,
        () => inboxLoad(h(false), 'h-ia-'),
      );
    }

    if (wanted('i-direct', 'i-pgbouncer')) {
      const unavailable = poolerUnavailable();
      const title = 'onejob jobs.create in-process through PgBouncer, transaction mode';
      if (unavailable) {
        skipped('i-direct', "onejob jobs.create in-process, direct (the pooler run's baseline)", unavailable);
        skipped('i-pgbouncer', title, unavailable);
      } else {
        const lib = (url: string) => ({
          url,
          concurrency: o.concurrency,
          poolSize: o.poolSize,
          workerConcurrency: o.workerConcurrency,
          intake: o.intake,
          ...timing,
        });
        const direct = await freshDatabase('pooler_direct');
        await scenario(
          'i-direct',
          "onejob jobs.create in-process, direct (the pooler run's baseline)",
          o.concurrency,
          () => libraryCreate(lib(direct.url), 'i-direct-'),
        );
        const pooled = await freshDatabase('pooler');
        await scenario('i-pgbouncer', title, o.concurrency, () =>
          poolerIntake(lib(pooled.url), pooled.name, 'i-pgbouncer-'),
        );
      }
    }
  } finally {
    if (!o.keep) {
      for (const db of databases) await db.drop().catch(() => undefined);
      await rm(workDir, { recursive: true, force: true });
    } else {
      progress.note(
        `kept databases ${databases.map((d) => d.name).join(', ')} and server logs in ${workDir}`,
      );
    }
  }

  scenarios.sort((x, y) => SCENARIO_IDS.indexOf(x.id) - SCENARIO_IDS.indexOf(y.id));
  const benchRun: BenchRun = {
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    machine: await machine(o.adminUrl),
    options: { ...o, adminUrl: undefined },
    scenarios,
    targets: evaluateTargets(scenarios, o.server),
  };
  const jsonPath =
    o.out ?? join(ROOT, 'bench', 'results', `${startedAt.toISOString().replace(/[:.]/g, '-')}.json`);
  await mkdir(join(jsonPath, '..'), { recursive: true });
  await writeFile(jsonPath, `${JSON.stringify(benchRun, null, 2)}\n`);
  return { run: benchRun, table: formatTable(benchRun), jsonPath };
}
