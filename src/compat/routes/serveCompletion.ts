// One SDK call: the key names the job, the normalised body is its input, and the call
// waits for it as long as the client's deadline allows. A retry or a duplicate with the
// same key attaches to the same job and gets the same completion; nothing here starts
// a provider call: the worker does, once per attempt, as for every job.
import { PassThrough } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Onejob } from '../../engine/Onejob.js';
import { isOnejobError, OnejobError } from '../../errors/OnejobError.js';
import { rateLimited } from '../../http/authenticate.js';
import type { WaitSlots } from '../../http/limits/WaitSlots.js';
import { ownerOf, traceparentOf } from '../../http/requestContext.js';
import { parseIdempotencyKey } from '../../jobs/idempotencyKey.js';
import { type JobView, TERMINAL_JOB_STATES } from '../../jobs/jobView.js';
import { callDeadlineMs } from '../callDeadline.js';
import type { ChatCompletion, ParsedCall } from '../chatRequest.js';
import { compatOperationName } from '../compatModels.js';
import { liveStreams } from '../liveStreams.js';
import { streamPieces } from '../streamPieces.js';
import { streamEvents, type WireCall, type WireFormat } from '../wire.js';

export interface CompatDeps {
  onejob: Onejob;
  waitSlots: WaitSlots;
  settings: { waitMs: number; maxWaitMs: number };
}

/** How often a waiting stream sends an SSE comment, so no proxy closes it as idle. */
const KEEPALIVE_MS = 15_000;

const KEY_HINT =
  'Send an Idempotency-Key header, one per user intent and the same on every retry: ' +
  'client.chat.completions.create(body, { headers: { "Idempotency-Key": key } }) ' +
  '(Python: extra_headers={"Idempotency-Key": key}), or the idempotencyKey request option ' +
  'on a client whose idempotencyHeader is "Idempotency-Key". onejob never derives a key from the body.';

function keyOf(request: FastifyRequest): string {
  try {
    return parseIdempotencyKey(request.headers['idempotency-key']);
  } catch (error) {
    if (isOnejobError(error, 'idempotency_key_missing'))
      throw new OnejobError('idempotency_key_missing', KEY_HINT);
    throw error;
  }
}

/** The refusal a job that is not succeeded answers with. */
function notCompleted(job: JobView): OnejobError {
  if (job.state === 'failed' && (job.error as { code?: string } | null)?.code === 'budget_exhausted') {
    // 402 with x-should-retry: false (wireErrors.ts): the SDKs do not retry it.
    const message = (job.error as { message?: string }).message;
    return new OnejobError('budget_exhausted', message, { jobId: job.id });
  }
  if (job.state === 'failed') {
    // The job's own error says why it stopped; the last attempt's says what the provider answered.
    const why = [job.error, job.attempts.at(-1)?.error]
      .map((e) => e as { code?: string; message?: string } | null | undefined)
      .flatMap((e) => (e?.message ? [`${e.code ?? 'error'}: ${e.message}`] : []))
      .join('; last attempt: ');
    return new OnejobError('completion_failed', `Job ${job.id} failed${why ? `: ${why}` : ''}`, {
      jobId: job.id,
    });
  }
  if (job.state === 'cancelled')
    return new OnejobError('completion_cancelled', `Job ${job.id} was cancelled.`, { jobId: job.id });
  return new OnejobError(
    'completion_pending',
    `Job ${job.id} is ${job.state}; retry with the same Idempotency-Key to attach to it.`,
    { jobId: job.id },
  );
}

/** The stored completion; an archived job whose record was purged keeps only its outcome. */
function completionOf(job: JobView): ChatCompletion {
  if (job.result === null || typeof job.result !== 'object')
    throw new OnejobError(
      'completion_purged',
      `Job ${job.id} succeeded, but its completion was purged with its archived record.`,
      { jobId: job.id },
    );
  return job.result as ChatCompletion;
}

function pendingHeaders(reply: FastifyReply): void {
  reply.header('Retry-After', '1');
  // Both SDKs read retry-after-ms first: the retry attaches to the same job, so it need not wait a whole second.
  reply.header('retry-after-ms', '200');
}

export async function serveCompletion(
  deps: CompatDeps,
  wire: WireFormat,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<unknown> {
  const { onejob } = deps;
  const owner = ownerOf(request);
  const idempotencyKey = keyOf(request);
  const call: ParsedCall = wire.normalize(request.body);
  const operation = compatOperationName(call.model);
  if (!onejob.operations.get(operation))
    throw new OnejobError(
      'model_not_found',
      `The model "${call.model}" is not configured under compat.models.`,
      {
        param: 'model',
      },
    );
  const { job, replayed } = await onejob.jobs.create({
    ownerId: owner,
    idempotencyKey,
    operation,
    input: call.request as unknown as Record<string, unknown>,
    traceparent: traceparentOf(request),
  });
  const retryCount = Number(request.headers['x-stainless-retry-count'] ?? 0);
  request.logFields = { jobId: job.id, idempotencyKey, replayed, operation, retryCount };
  if (Number.isSafeInteger(retryCount) && retryCount > 0) {
    const attemptId = job.attempts.at(-1)?.id ?? null;
    await onejob.jobs
      .recordClientRetry(job.id, { retryCount, requestId: request.id, attemptId })
      .catch((error: unknown) => request.log.warn({ err: error }, 'recording the client retry failed'));
  }
  reply.header('x-onejob-job-id', job.id);
  if (replayed) reply.header('Idempotent-Replayed', 'true');
  const wireCall: WireCall = {
    jobId: job.id,
    createdAt: job.createdAt,
    model: call.model,
    includeUsage: call.includeUsage,
  };
  if (!deps.waitSlots.tryTake(owner)) throw rateLimited(1, 'waiting calls');
  let release = true;
  try {
    // A job already final answers at once, with its status; a stream of a running job opens now.
    if (call.stream && !TERMINAL_JOB_STATES.includes(job.state)) {
      release = false;
      return openStream(deps, wire, wireCall, owner, reply);
    }
    // A client that went away stops the wait at the next re-read; the job goes on without it.
    let gone = false;
    reply.raw.on('close', () => {
      gone = true;
    });
    // An unknown outcome is not final: a pure job retries.
    const waited = await onejob.jobs.waitFor(owner, job.id, {
      until: TERMINAL_JOB_STATES,
      ms: callDeadlineMs(request.headers['x-stainless-timeout'], deps.settings),
      stopped: () => gone,
    });
    if (waited.state !== 'succeeded') {
      if (!TERMINAL_JOB_STATES.includes(waited.state)) pendingHeaders(reply);
      throw notCompleted(waited);
    }
    const completion = completionOf(waited);
    if (call.stream)
      return reply
        .type('text/event-stream; charset=utf-8')
        .header('cache-control', 'no-cache')
        .send(streamEvents(wire.stream, wireCall, completion).join(''));
    return reply.type('application/json; charset=utf-8').send(wire.completionBody(wireCall, completion));
  } finally {
    if (release) deps.waitSlots.release(owner);
  }
}

/**
 * A stream asked for while the job runs: the SSE response opens at once (so the client's
 * deadline, which covers only the response headers, cannot end the call), comments keep
 * it alive, and the completion follows when the job has one. The events are the
 * completion's, cut the way a replay cuts them: a stream and its replay are identical.
 */
function openStream(
  deps: CompatDeps,
  wire: WireFormat,
  call: WireCall,
  owner: string,
  reply: FastifyReply,
): FastifyReply {
  const body = new PassThrough();
  const keepAlive = setInterval(() => body.write(': waiting for the completion\n\n'), KEEPALIVE_MS);
  let closed = false;
  reply.raw.on('close', () => {
    closed = true;
  });
  for (const event of wire.stream.head(call)) body.write(event);
  // The pieces the attempt that claimed the job's stream has produced in this process so
  // far, then each next one as it comes; the stored completion supplies the rest.
  const sent: string[] = [];
  const send = (piece: string) => {
    sent.push(piece);
    body.write(wire.stream.piece(call, piece));
  };
  const live = liveStreams.attach(call.jobId, send);
  for (const piece of live.pieces) send(piece);
  const finish = async () => {
    try {
      // A client that went away stops the wait at the next re-read: the job goes on without it.
      const job = await deps.onejob.jobs.waitFor(owner, call.jobId, {
        until: TERMINAL_JOB_STATES,
        ms: deps.settings.maxWaitMs,
        stopped: () => closed,
      });
      live.detach();
      if (closed) return;
      if (job.state !== 'succeeded') throw notCompleted(job);
      const completion = completionOf(job);
      const pieces = streamPieces(completion.text);
      if (sent.some((piece, i) => pieces[i] !== piece))
        throw new OnejobError(
          'stream_interrupted',
          `The attempt this stream relayed stopped after it began, and job ${call.jobId} completed through another; call again with the same Idempotency-Key for its completion.`,
          { jobId: call.jobId },
        );
      for (const piece of pieces.slice(sent.length)) body.write(wire.stream.piece(call, piece));
      for (const event of wire.stream.tail(call, completion)) body.write(event);
    } catch (thrown) {
      // The status line has gone out: a refusal now is an error event, which both SDKs raise.
      const error = isOnejobError(thrown)
        ? thrown
        : new OnejobError('internal_error', `The stream of job ${call.jobId} failed; see the server log.`);
      if (!isOnejobError(thrown)) reply.log.error({ err: thrown }, 'compat stream failed');
      body.write(wire.stream.error({ status: error.status, code: error.code, message: error.detail }));
    } finally {
      live.detach();
      clearInterval(keepAlive);
      deps.waitSlots.release(owner);
      body.end();
    }
  };
  void finish();
  return reply.type('text/event-stream; charset=utf-8').header('cache-control', 'no-cache').send(body);
}
