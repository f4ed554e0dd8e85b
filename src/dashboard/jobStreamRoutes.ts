import { setTimeout as delay } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import type { Onejob } from '../createOnejob.js';
import type { JobView } from '../jobs/jobView.js';
import { ownerOf } from '../http/requestContext.js';

/** How long one stream lives; the page reconnects, so no connection is held forever. */
const STREAM_MS = 5 * 60_000;
/** Each read waits this long for the job's settled wake-up; attempt starts show within it. */
const READ_MS = 1_000;
/** A comment line now and then keeps proxies from closing an idle stream. */
const HEARTBEAT_MS = 15_000;

const FINAL = new Set(['succeeded', 'failed', 'cancelled']);

// What the page draws: a change in any of these is worth a new event.
const fingerprint = (job: JobView) =>
  JSON.stringify([
    job.state,
    job.version,
    job.updatedAt,
    job.completedBy,
    job.attempts.map((a) => [a.n, a.state, a.finishedAt]),
  ]);

/**
 * `GET /v1/dashboard/jobs/{id}/stream`: server-sent events for the job page. It sends the
 * job at once and again whenever it changes, woken by the engine's job-settled wake-up
 * (`onejob.jobs.wait`) and otherwise re-reading every second, so new attempts show too.
 * It ends once the job succeeded, failed or was cancelled. The page reads it with fetch
 * (EventSource cannot send the bearer token, and the token never goes into a URL).
 */
export async function jobStreamRoutes(app: FastifyInstance, { onejob }: { onejob: Onejob }) {
  const open = new Set<AbortController>();
  // Fastify waits for open connections on close; end the streams first.
  app.addHook('preClose', async () => {
    for (const c of open) c.abort();
  });

  app.get<{ Params: { id: string } }>(
    '/v1/dashboard/jobs/:id/stream',
    {
      schema: {
        summary:
          'Server-sent events: the job now and at each change, until it succeeds, fails or is cancelled',
        tags: ['dashboard'],
        params: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } },
      },
    },
    async (request, reply) => {
      const ownerId = ownerOf(request);
      const { id } = request.params;
      // Not found (or another owner's) answers a problem document before the stream starts.
      let job = await onejob.jobs.get(ownerId, id);
      const stop = new AbortController();
      open.add(stop);
      const end = setTimeout(() => stop.abort(), STREAM_MS);
      // The client went away (the response closes before we end it).
      reply.raw.on('close', () => stop.abort());
      reply.hijack();
      const out = reply.raw;
      out.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache',
        'x-accel-buffering': 'no',
        'x-content-type-options': 'nosniff',
        // One stream per connection: when it ends, so does the socket, and close() need not wait for it.
        connection: 'close',
      });
      const send = (j: JobView) => out.write(`event: job\ndata: ${JSON.stringify(j)}\n\n`);
      let last = fingerprint(job);
      let lastWrite = Date.now();
      send(job);
      try {
        while (!stop.signal.aborted && !FINAL.has(job.state)) {
          const started = Date.now();
          job = await onejob.jobs.wait(ownerId, id, READ_MS);
          if (stop.signal.aborted) break;
          const now = fingerprint(job);
          if (now !== last) {
            last = now;
            lastWrite = Date.now();
            send(job);
          } else if (Date.now() - lastWrite > HEARTBEAT_MS) {
            lastWrite = Date.now();
            out.write(': still here\n\n');
          }
          // An unknown job counts as settled, so wait() answers at once: pace the re-reads.
          const left = READ_MS - (Date.now() - started);
          if (left > 0) await delay(left, undefined, { signal: stop.signal }).catch(() => undefined);
        }
      } catch (error) {
        request.log.warn({ err: error }, 'job stream ended by an error');
        out.write(`event: error\ndata: ${JSON.stringify({ message: 'the stream ended; reload' })}\n\n`);
      } finally {
        clearTimeout(end);
        open.delete(stop);
        out.end();
      }
    },
  );
}
