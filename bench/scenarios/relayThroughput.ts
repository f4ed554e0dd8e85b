// (e) The outbox relay: committed events to JetStream acks, as `onejob serve --role relay`
// does it. The outbox is filled before the relay starts; the relay registers its
// publisher, takes over the backlog, and the count of deliveries marked published (which
// happens only after the broker's ack) is the measure.
import { randomBytes } from 'node:crypto';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import type pg from 'pg';
import { benchConfig } from '../benchConfig.js';
import { connectCounter } from '../benchDatabase.js';
import { measureCompletions } from '../measureCompletions.js';
import type { LoadResult } from '../measureLoad.js';
import type { Progress } from '../progress.js';
import { type ServedRun, startServedServer } from '../serverProcess.js';
import { roleUnavailable } from './roleAvailable.js';

export const relayUnavailable = () => roleUnavailable('relay');

export interface RelayRun extends ServedRun {
  natsUrl: string;
  events: number;
  warmupMs: number;
  durationMs: number;
  progress: Progress;
}

/** Event log rows shaped like onejob.job.created events, one subject (job) each. */
async function fillOutbox(client: pg.Client, count: number): Promise<void> {
  await client.query(
    `INSERT INTO onejob.job_events (id, owner_id, job_id, type, data, publish)
     SELECT e.id, 'bench', e.job, 'created',
       jsonb_build_object('jobId', e.job, 'operation', 'noop', 'idempotencyKey', 'k-' || e.g, 'state', 'queued', 'version', 1),
       'onejob.job.created'
     FROM (SELECT g, gen_random_uuid() AS id, gen_random_uuid() AS job FROM generate_series(1, $1) g) e`,
    [count],
  );
}

export async function relayThroughput(r: RelayRun): Promise<LoadResult & { extra: Record<string, unknown> }> {
  const tag = randomBytes(3).toString('hex');
  const stream = `ONEJOB_BENCH_RELAY_${tag.toUpperCase()}`;
  const counter = await connectCounter(r.databaseUrl);
  try {
    await fillOutbox(counter, r.events);
    const server = await startServedServer(
      r,
      'relay',
      'relay',
      // A stream and subject prefix of its own, so the run never meets another stream's subjects.
      benchConfig({
        workerConcurrency: r.workerConcurrency,
        publisher: { kind: 'nats', name: 'nats', url: r.natsUrl, stream, subjectPrefix: `bench${tag}.` },
      }),
    );
    const stopRss = server.sampleRss();
    const published = async () => {
      const { rows } = await counter.query<{ n: string }>(
        `SELECT count(*) AS n FROM onejob.job_events e JOIN onejob.outbox_publishers p ON p.name = 'nats'
         WHERE e.publish IS NOT NULL AND onejob.event_behind(e.xid, e.seq, p.done, p.window_end, p.window_seq)`,
      );
      return Number(rows[0]!.n);
    };
    try {
      // Measure the relay publishing, not the relay starting: the window opens once the
      // first batch is acknowledged (bounded, so a relay that never publishes still ends).
      const openBy = Date.now() + 60_000;
      while ((await published()) === 0 && Date.now() < openBy) await new Promise((r) => setTimeout(r, 100));
      const result = await measureCompletions({
        label: 'onejob relay',
        warmupMs: r.warmupMs,
        durationMs: r.durationMs,
        progress: r.progress,
        pollMs: 250,
        total: r.events,
        completed: published,
      });
      return { ...result, extra: { serverRssMb: stopRss(), serverIdleRssMb: server.idleRssMb } };
    } finally {
      await server.stop();
    }
  } finally {
    await counter.end();
    const nc = await connect({ servers: r.natsUrl });
    await (await jetstreamManager(nc)).streams.delete(stream).catch(() => undefined);
    await nc.close();
  }
}
