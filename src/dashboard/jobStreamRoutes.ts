import type { FastifyInstance } from 'fastify';
import { idParamsSchema } from '../contract/index.js';
import type { Onejob } from '../createOnejob.js';
import { rateLimited } from '../http/authenticate.js';
import type { WaitSlots } from '../http/limits/WaitSlots.js';
import { ownerOf } from '../http/requestContext.js';
import { typed } from '../http/schemas.js';
import { type JobView, TERMINAL_JOB_STATES } from '../jobs/jobView.js';

/** How long one stream lives; the page reconnects, so no connection is held forever. */
const STREAM_MS = 5 * 60_000;
/**
 * Longest a stream goes without looking at its job when no wake-up arrives: a worker's
 * attempt start sends none, and a notification can be lost. Each look reads a few dozen
 * bytes (the change mark), never the job.
 */
const REREAD_MS = 5_000;
/** A comment line now and then keeps proxies from closing an idle stream. */
const HEARTBEAT_MS = 15_000;

export interface JobStreamRoutesOptions {
  onejob: Onejob;
  /** The per-owner slots long-polls take: a stream holds one for as long as it is open. */
  waitSlots: WaitSlots;
}

/**
 * `GET /v1/dashboard/jobs/{id}/stream`: server-sent events for the job page. It sends the
 * job at once and again whenever it changes. Each stream holds one of its owner's
 * long-poll slots (`http.maxWaitsPerOwner`; past them `429`). It sleeps until the job's
 * wake-up (the notification hub) or `REREAD_MS`, then reads the job's change mark, and
 * reads the whole job only when the mark moved. It ends once the job succeeded, failed or
 * was cancelled. The page reads it with fetch (EventSource cannot send the bearer token,
 * and the token never goes into a URL). `HEAD` answers the headers at once.
 */
export async function jobStreamRoutes(app: FastifyInstance, { onejob, waitSlots }: JobStreamRoutesOptions) {
  const open = new Set<AbortController>();
  // Fastify waits for open connections on close; end the streams first.
  app.addHook('preClose', async () => {
    for (const c of open) c.abort();
  });

  typed(app).get(
    '/v1/dashboard/jobs/:id/stream',
    {
      schema: {
        summary:
          'Server-sent events: the job now and at each change, until it succeeds, fails or is cancelled',
        tags: ['dashboard'],
        params: idParamsSchema,
      },
    },
    async (request, reply) => {
      const ownerId = ownerOf(request);
      const { id } = request.params;
      if (request.method === 'HEAD') {
        // Not found (or another owner's) is a 404 here too; a live job's input is not read.
        if (!(await onejob.jobs.changeMark(ownerId, id))) await onejob.jobs.get(ownerId, id);
        return reply.type('text/event-stream; charset=utf-8').header('cache-control', 'no-cache').send();
      }
      if (!waitSlots.tryTake(ownerId)) throw rateLimited(1, 'job streams and long-polls');
      let held = true;
      const release = () => {
        if (held) waitSlots.release(ownerId);
        held = false;
      };
      let mark: Awaited<ReturnType<Onejob['jobs']['changeMark']>>;
      let job: JobView;
      try {
        // Not found (or another owner's) answers a problem document before the stream starts.
        mark = await onejob.jobs.changeMark(ownerId, id);
        job = await onejob.jobs.get(ownerId, id);
      } catch (error) {
        release();
        throw error;
      }
      const stop = new AbortController();
      open.add(stop);
      const end = setTimeout(() => stop.abort(), STREAM_MS);
      const stopped = new Promise<void>((resolve) => stop.signal.addEventListener('abort', () => resolve()));
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
      let lastWrite = Date.now();
      send(job);
      try {
        // An archived job has no change mark: what was sent is final.
        while (mark && !stop.signal.aborted && !TERMINAL_JOB_STATES.includes(mark.state)) {
          await Promise.race([onejob.wakeups.waitForJob(id, REREAD_MS), stopped]);
          if (stop.signal.aborted) break;
          const now = await onejob.jobs.changeMark(ownerId, id);
          if (now && now.mark !== mark.mark) {
            job = await onejob.jobs.get(ownerId, id);
            lastWrite = Date.now();
            send(job);
          } else if (Date.now() - lastWrite > HEARTBEAT_MS) {
            lastWrite = Date.now();
            out.write(': still here\n\n');
          }
          mark = now;
        }
      } catch (error) {
        request.log.warn({ err: error }, 'job stream ended by an error');
        out.write(`event: error\ndata: ${JSON.stringify({ message: 'the stream ended; reload' })}\n\n`);
      } finally {
        clearTimeout(end);
        open.delete(stop);
        release();
        out.end();
      }
    },
  );
}
