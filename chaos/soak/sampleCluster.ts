// One sample of a soak: per onejob process its RSS and event-loop delay (from the process
// probe), and from PostgreSQL the connections to the run's database, the outbox backlog
// (deliveries not yet accepted by the broker), unknown jobs and jobs still open.
import type pg from 'pg';
import type { OnejobFleet } from '../cluster/onejobFleet.js';

export interface ProcessSample {
  rssMb: number;
  /** V8 heap in use and reserved, and memory held outside the heap (buffers). */
  heapUsedMb?: number;
  heapTotalMb?: number;
  externalMb?: number;
  /** Size of each V8 heap space (new_space, old_space, code_space...), MB. */
  heapSpacesMb?: Record<string, number>;
  loopP99Ms: number;
  loopMaxMs: number;
}

export interface SoakSample {
  /** Milliseconds since the steady load started. */
  atMs: number;
  processes: Record<string, ProcessSample | null>;
  dbConnections: number;
  outboxBacklog: number;
  unknownJobs: number;
  openJobs: number;
}

const DB_SQL = `
SELECT (SELECT count(*) FROM pg_stat_activity WHERE datname = current_database())::int AS connections,
       (SELECT count(*) FROM onejob.outbox_deliveries WHERE state = 'pending')::int AS backlog,
       (SELECT count(*) FROM onejob.jobs WHERE state = 'unknown')::int AS unknown,
       (SELECT count(*) FROM onejob.jobs WHERE state IN ('queued', 'running'))::int AS open`;

export async function sampleCluster(
  fleet: OnejobFleet,
  pool: pg.Pool,
  startedAt: number,
): Promise<SoakSample> {
  const processes: Record<string, ProcessSample | null> = {};
  await Promise.all(
    fleet.members.map(async (m) => {
      processes[m.name] = null;
      if (!m.probeUrl) return;
      try {
        const res = await fetch(m.probeUrl, { signal: AbortSignal.timeout(5_000) });
        const body = (await res.json()) as {
          rssBytes: number;
          heapUsedBytes?: number;
          heapTotalBytes?: number;
          externalBytes?: number;
          heapSpaceBytes?: Record<string, number>;
          eventLoopDelayMs: { p99: number; max: number };
        };
        processes[m.name] = {
          rssMb: mb(body.rssBytes),
          heapUsedMb: mb(body.heapUsedBytes),
          heapTotalMb: mb(body.heapTotalBytes),
          externalMb: mb(body.externalBytes),
          heapSpacesMb: Object.fromEntries(
            Object.entries(body.heapSpaceBytes ?? {}).map(([k, v]) => [k, mb(v)]),
          ),
          loopP99Ms: Math.round(body.eventLoopDelayMs.p99 * 10) / 10,
          loopMaxMs: Math.round(body.eventLoopDelayMs.max * 10) / 10,
        };
      } catch {
        // A process that does not answer its probe is recorded as missing, not as zero.
      }
    }),
  );
  const { rows } = await pool.query<{ connections: number; backlog: number; unknown: number; open: number }>(
    DB_SQL,
  );
  const r = rows[0]!;
  return {
    atMs: Date.now() - startedAt,
    processes,
    dbConnections: r.connections,
    outboxBacklog: r.backlog,
    unknownJobs: r.unknown,
    openJobs: r.open,
  };
}

const mb = (bytes = 0) => Math.round((bytes / 1_048_576) * 10) / 10;
