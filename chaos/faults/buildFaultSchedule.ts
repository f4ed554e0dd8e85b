// The fault schedule of a run, derived from its seed alone: every kind of fault appears
// at least once (when the run is long enough), then random faults fill the fault phase.
// `kinds` restricts both to the named kinds (`--faults`).

import { createRng } from '../random/createRng.js';
import { FAULT_KINDS, type FaultKind } from './faultKinds.js';

export type Role = 'api' | 'worker' | 'relay';

/** Failpoints from the contract, and the role whose process reaches each. */
export const FAILPOINTS: Readonly<Record<string, Role>> = {
  'api.after_commit': 'api',
  'worker.after_claim': 'worker',
  'worker.after_provider_response': 'worker',
  'relay.before_publish': 'relay',
  'relay.after_publish': 'relay',
  'inbox.after_commit': 'api',
};

export interface PlannedFault {
  /** Milliseconds after the start of the run; a fault starts no earlier, and after the previous one ends. */
  atMs: number;
  kind: FaultKind;
  /** Failpoint name, `role-index` of a process, NATS node index or provider name. */
  target: string;
  /** How long the fault lasts: outage, stall or the window in which a failpoint may fire. */
  durationMs: number;
  /** primary_failover: how long the standby is held behind before the primary dies. */
  standbyLagMs?: number;
}

export interface ScheduleOptions {
  seed: number;
  /** Length of the fault phase. */
  durationMs: number;
  processes: Record<Role, number>;
  natsNodes: number;
  /** Restarting PostgreSQL needs a server the run owns (the embedded one). */
  postgresRestart: boolean;
  /** Stalling PostgreSQL (SIGSTOP) needs one too; default: as `postgresRestart`. */
  postgresStall?: boolean;
  /** A synchronous standby runs beside the primary (`--replica`): the failover fault can run. */
  replica?: boolean;
  /** The fake model providers run (late answers past the attempt deadline). */
  inference?: boolean;
  /** Library-mode processes (`library-N`), killed like the service processes. */
  library?: number;
  failpoints?: readonly string[];
  /** Mean gap between faults. */
  meanGapMs?: number;
  /** Only these kinds (`--faults`); a kind this run cannot inject is an error, not a silent gap. */
  kinds?: readonly FaultKind[];
}

/** Why a kind cannot run with these options, or undefined when it can. */
function unavailable(kind: FaultKind, o: ScheduleOptions, failpoints: readonly string[]): string | undefined {
  switch (kind) {
    case 'failpoint_kill':
      return failpoints.length > 0 ? undefined : 'no process reaches a failpoint';
    case 'postgres_restart':
      return o.postgresRestart ? undefined : 'needs a PostgreSQL the run owns (not --database system)';
    case 'postgres_stall':
      return (o.postgresStall ?? o.postgresRestart)
        ? undefined
        : 'needs a PostgreSQL the run owns (not --database system)';
    case 'primary_failover':
      return o.replica ? undefined : 'needs a synchronous standby (--replica)';
    case 'nats_node_restart':
    case 'nats_node_stall':
      return o.natsNodes >= 3 ? undefined : 'needs a NATS cluster of three nodes';
    case 'relay_batch_kill':
      return o.processes.relay > 0 ? undefined : 'needs a relay process';
    case 'provider_late':
      return o.inference ? undefined : 'needs the model providers (inference load)';
    case 'process_kill':
    case 'provider_stall':
      return undefined;
  }
}

export function buildFaultSchedule(o: ScheduleOptions): PlannedFault[] {
  const rng = createRng(o.seed ^ 0x5eed);
  const failpoints = (o.failpoints ?? Object.keys(FAILPOINTS)).filter((f) => o.processes[FAILPOINTS[f]!] > 0);
  const roles: (Role | 'library')[] = (Object.keys(o.processes) as Role[]).filter((r) => o.processes[r] > 0);
  if ((o.library ?? 0) > 0) roles.push('library');
  const count = (role: Role | 'library') => (role === 'library' ? (o.library ?? 0) : o.processes[role]);
  const meanGap = o.meanGapMs ?? 6_000;

  if (o.kinds !== undefined) {
    if (o.kinds.length === 0) throw new Error('the fault schedule is restricted to no kind at all');
    const refused = o.kinds.flatMap((k) => {
      const why = unavailable(k, o, failpoints);
      return why ? [`${k} (${why})`] : [];
    });
    if (refused.length > 0) throw new Error(`this run cannot inject ${refused.join(', ')}`);
  }
  const wanted = (k: FaultKind) =>
    (o.kinds === undefined || o.kinds.includes(k)) && unavailable(k, o, failpoints) === undefined;

  type Seed = { kind: FaultKind; failpoint?: string };
  // In FAULT_KINDS order, failpoints expanded: a run without a filter draws the same
  // schedule as before the filter existed.
  const every: Seed[] = FAULT_KINDS.filter(wanted).flatMap((kind): Seed[] =>
    kind === 'failpoint_kill' ? failpoints.map((f) => ({ kind, failpoint: f })) : [{ kind }],
  );
  const queue = rng.shuffle(every);

  const plan: PlannedFault[] = [];
  let at = Math.min(2_000, o.durationMs / 10);
  while (at < o.durationMs) {
    const seed = queue.shift() ?? rng.pick(every);
    const fault = materialise(seed, at);
    plan.push(fault);
    at += fault.durationMs + rng.int(Math.floor(meanGap / 2), Math.floor((meanGap * 3) / 2));
  }
  return plan;

  function materialise(seed: Seed, atMs: number): PlannedFault {
    switch (seed.kind) {
      case 'failpoint_kill': {
        const role = FAILPOINTS[seed.failpoint!]!;
        return {
          atMs,
          kind: seed.kind,
          target: `${seed.failpoint}@${role}-${rng.int(1, o.processes[role])}`,
          durationMs: 10_000,
        };
      }
      case 'process_kill': {
        const role = rng.pick(roles);
        return {
          atMs,
          kind: seed.kind,
          target: `${role}-${rng.int(1, count(role))}`,
          durationMs: rng.int(300, 1_500),
        };
      }
      case 'postgres_restart':
        return { atMs, kind: seed.kind, target: 'postgres', durationMs: rng.int(1_000, 3_000) };
      case 'nats_node_restart':
        return {
          atMs,
          kind: seed.kind,
          target: `nats-${rng.int(1, o.natsNodes)}`,
          durationMs: rng.int(1_000, 4_000),
        };
      case 'postgres_stall':
        return { atMs, kind: seed.kind, target: 'postgres', durationMs: rng.int(1_000, 4_000) };
      case 'nats_node_stall':
        return {
          atMs,
          kind: seed.kind,
          target: `nats-${rng.int(1, o.natsNodes)}`,
          durationMs: rng.int(1_000, 4_000),
        };
      case 'relay_batch_kill':
        // The relay stays down for durationMs so a backlog builds, then dies inside its first batch.
        return {
          atMs,
          kind: seed.kind,
          target: `relay.after_publish@relay-${rng.int(1, o.processes.relay)}`,
          durationMs: rng.int(1_500, 3_000),
        };
      case 'provider_late':
        return { atMs, kind: seed.kind, target: 'llm-primary', durationMs: rng.int(2_000, 5_000) };
      case 'primary_failover':
        // durationMs: how long after the kill the standby is promoted (clients meanwhile
        // find no primary). Building a new standby follows, and the fault ends after it.
        return {
          atMs,
          kind: seed.kind,
          target: 'postgres-primary',
          durationMs: rng.int(500, 2_000),
          // Often none; otherwise the primary dies with up to 1.5 s of WAL the standby lacks.
          standbyLagMs: rng.chance(0.3) ? 0 : rng.int(100, 1_500),
        };
      default:
        return { atMs, kind: 'provider_stall', target: 'pay', durationMs: rng.int(2_000, 5_000) };
    }
  }
}
