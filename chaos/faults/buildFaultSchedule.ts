// The fault schedule of a run, derived from its seed alone: every kind of fault appears
// at least once (when the run is long enough), then random faults fill the fault phase.
import type { FaultKind } from '../history/types.js';
import { createRng } from '../random/createRng.js';

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
  /** The fake model providers run (late answers past the attempt deadline). */
  inference?: boolean;
  /** Library-mode processes (`library-N`), killed like the service processes. */
  library?: number;
  failpoints?: readonly string[];
  /** Mean gap between faults. */
  meanGapMs?: number;
}

export function buildFaultSchedule(o: ScheduleOptions): PlannedFault[] {
  const rng = createRng(o.seed ^ 0x5eed);
  const failpoints = (o.failpoints ?? Object.keys(FAILPOINTS)).filter((f) => o.processes[FAILPOINTS[f]!] > 0);
  const roles: (Role | 'library')[] = (Object.keys(o.processes) as Role[]).filter((r) => o.processes[r] > 0);
  if ((o.library ?? 0) > 0) roles.push('library');
  const count = (role: Role | 'library') => (role === 'library' ? (o.library ?? 0) : o.processes[role]);
  const meanGap = o.meanGapMs ?? 6_000;

  type Seed = { kind: FaultKind; failpoint?: string };
  const every: Seed[] = [
    ...failpoints.map((f) => ({ kind: 'failpoint_kill' as const, failpoint: f })),
    { kind: 'process_kill' },
    { kind: 'provider_stall' },
    ...(o.natsNodes >= 3
      ? [{ kind: 'nats_node_restart' as const }, { kind: 'nats_node_stall' as const }]
      : []),
    ...(o.postgresRestart ? [{ kind: 'postgres_restart' as const }] : []),
    ...((o.postgresStall ?? o.postgresRestart) ? [{ kind: 'postgres_stall' as const }] : []),
    ...(o.processes.relay > 0 ? [{ kind: 'relay_batch_kill' as const }] : []),
    ...(o.inference ? [{ kind: 'provider_late' as const }] : []),
  ];
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
      default:
        return { atMs, kind: 'provider_stall', target: 'pay', durationMs: rng.int(2_000, 5_000) };
    }
  }
}
