// Applies a planned fault schedule, one fault after another, recording each as it really
// happened (a failpoint the process never reached within its window is recorded as such).

import { ATTEMPT_TIMEOUT_MS } from '../cluster/chaosConfig.js';
import type { OnejobFleet } from '../cluster/onejobFleet.js';
import type { ChaosDatabase } from '../cluster/startDatabase.js';
import type { FakeInferenceProvider } from '../cluster/startFakeInferenceProvider.js';
import type { FakePaymentProvider } from '../cluster/startFakePaymentProvider.js';
import type { NatsCluster } from '../cluster/startNatsCluster.js';
import type { FaultRecord } from '../history/types.js';
import type { PlannedFault } from './buildFaultSchedule.js';

export interface FaultTargets {
  /** Restarts still in progress, per process: a later fault on that process waits for its restart. */
  restarts?: Map<string, Promise<unknown>>;
  fleet: OnejobFleet;
  nats: NatsCluster;
  db: ChaosDatabase;
  provider: FakePaymentProvider;
  /** The fake model providers, when inference operations run. */
  models?: FakeInferenceProvider;
  log: (line: string) => void;
  /** Called after each fault, to sample what the invariants must hold at every instant. */
  afterFault?: (fault: PlannedFault) => Promise<void>;
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** How long a process restarted with a failpoint has to reach it. */
const FAILPOINT_WINDOW_MS = 10_000;

/** Restarts a process in the background, so the next fault need not wait for a slow start. */
function restartLater(t: FaultTargets, name: string) {
  t.restarts ??= new Map();
  const restarts = t.restarts;
  const p = t.fleet.start(name).finally(() => {
    if (restarts.get(name) === p) restarts.delete(name);
  });
  restarts.set(name, p);
}

/**
 * Kills a process at a failpoint: stops it, waits `downMs` (a backlog builds), starts it
 * with the failpoint armed, and waits for it to die there. Returns what happened.
 */
async function killAtFailpoint(f: PlannedFault, t: FaultTargets, downMs: number): Promise<string> {
  const [failpoint, name] = f.target.split('@') as [string, string];
  await t.restarts?.get(name);
  const member = t.fleet.get(name);
  await t.fleet.kill(name);
  if (downMs > 0) await pause(downMs);
  const from = member.process.output().length;
  // Not waiting for readiness: a worker or relay with a backlog reaches its failpoint
  // before it has even said it is running.
  t.fleet.launch(name, { ONEJOB_FAILPOINTS: `${failpoint}=kill` });
  // The window opens once the process serves (starting from source takes seconds on a busy machine).
  await member.process.waitForOutput(/onejob is running/, 60_000, from).catch(() => undefined);
  const fired = await member.process.waitForExit(FAILPOINT_WINDOW_MS);
  const reached = fired && /failpoint \S+: SIGKILL/.test(member.process.output().slice(from));
  const tail = member.process.output().slice(from).trim().split('\n').slice(-3).join(' | ').slice(0, 400);
  if (!fired) await t.fleet.kill(name);
  restartLater(t, name);
  return reached
    ? 'reached: killed at the failpoint; restarting'
    : `not reached within its window (last output: ${tail || 'none'}); killed, restarting`;
}

export async function applyFault(f: PlannedFault, t: FaultTargets): Promise<FaultRecord> {
  const startedAt = Date.now();
  const done = (note?: string): FaultRecord => ({
    kind: f.kind,
    target: f.target,
    startedAt,
    endedAt: Date.now(),
    ...(note ? { note } : {}),
  });
  switch (f.kind) {
    case 'failpoint_kill':
      return done(await killAtFailpoint(f, t, 0));
    case 'relay_batch_kill':
      return done(await killAtFailpoint(f, t, f.durationMs));
    case 'postgres_stall': {
      if (!t.db.stall) return done('skipped: the database is not owned by this run');
      const n = await t.db.stall(f.durationMs);
      return done(`stopped the postmaster and ${n - 1} of its processes`);
    }
    case 'nats_node_stall': {
      await t.nats.stallNode(Number(f.target.split('-')[1]) - 1, f.durationMs);
      return done();
    }
    case 'provider_late': {
      if (!t.models) return done('skipped: no model providers in this run');
      // Requests arriving in the window are answered after the attempt deadline, within the grace period.
      t.models.late(Date.now() + f.durationMs);
      await pause(f.durationMs);
      return done();
    }
    case 'process_kill': {
      await t.restarts?.get(f.target);
      await t.fleet.kill(f.target);
      await pause(f.durationMs);
      restartLater(t, f.target);
      return done();
    }
    case 'primary_failover': {
      if (!t.db.failover) return done('skipped: no standby in this run');
      return done(await t.db.failover(f.durationMs, f.standbyLagMs ?? 0));
    }
    case 'postgres_restart': {
      if (!t.db.restart) return done('skipped: the database is not owned by this run');
      await t.db.restart(f.durationMs);
      return done();
    }
    case 'nats_node_restart': {
      const i = Number(f.target.split('-')[1]) - 1;
      await t.nats.stopNode(i);
      await pause(f.durationMs);
      await t.nats.startNode(i);
      return done();
    }
    case 'provider_stall': {
      // Requests that arrive during the stall take longer than the attempt timeout.
      t.provider.stall(Date.now() + f.durationMs, ATTEMPT_TIMEOUT_MS * 2 + 1_000);
      await pause(f.durationMs);
      return done();
    }
  }
}

export async function runFaults(
  plan: PlannedFault[],
  t: FaultTargets,
  runStart: number,
  until: number,
  shouldStop: () => boolean,
): Promise<FaultRecord[]> {
  const records: FaultRecord[] = [];
  for (const f of plan) {
    const wait = runStart + f.atMs - Date.now();
    if (wait > 0) await pause(wait);
    if (shouldStop() || Date.now() > until) break;
    t.log(`fault ${f.kind} ${f.target} (${f.durationMs} ms)`);
    try {
      const r = await applyFault(f, t);
      records.push(r);
      await t.afterFault?.(f).catch(() => undefined);
      t.log(`  ${r.note ? `${r.note}, ` : ''}${Math.round((r.endedAt - r.startedAt) / 100) / 10} s`);
    } catch (error) {
      records.push({
        kind: f.kind,
        target: f.target,
        startedAt: Date.now(),
        endedAt: Date.now(),
        note: `harness error: ${(error as Error).message.slice(0, 300)}`,
      });
      t.log(`  harness error: ${(error as Error).message.slice(0, 300)}`);
    }
  }
  await Promise.allSettled([...(t.restarts?.values() ?? [])]);
  return records;
}
