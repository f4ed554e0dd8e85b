// onejob.jobs: intake through the group commit (or alone in the caller's transaction),
// reads, the long-poll and archiving.
import { BudgetDoor } from '../../budgets/BudgetDoor.js';
import { recordClientRetry } from '../../compat/recordClientRetry.js';
import { isOnejobError, OnejobError } from '../../errors/OnejobError.js';
import { afterCreate, applyAfterWrite } from '../../events/afterWrite.js';
import type { NotificationHub } from '../../events/notificationHub.js';
import { archiveJobs } from '../../jobs/archiveJobs.js';
import { type CreateJobRequest, type CreateJobResult, createJob } from '../../jobs/createJob.js';
import type { JobBatcher } from '../../jobs/createJobBatcher.js';
import type { JobReader } from '../../jobs/createJobReader.js';
import { getJob } from '../../jobs/getJob.js';
import { refuseReservedKey } from '../../jobs/idempotencyKey.js';
import { type JobChangeMark, jobChangeMark } from '../../jobs/jobChangeMark.js';
import {
  type JobDeliveryView,
  type JobEventView,
  listJobDeliveries,
  listJobEvents,
} from '../../jobs/jobHistory.js';
import { endJobSpan, startJobSpan } from '../../jobs/jobSpan.js';
import { type JobState, type JobView, SETTLED_JOB_STATES } from '../../jobs/jobView.js';
import { type JobPage, type ListJobsQuery, listJobs } from '../../jobs/listJobs.js';
import type { JobReadOptions } from '../../operations/code/typedJobs.js';
import type { EngineDeps, TxOption } from '../engineDeps.js';

/** Longest a long-poll goes without re-reading its job when no wake-up arrives. */
const WAIT_REREAD_MS = 5_000;

export interface WaitForOptions extends JobReadOptions<string> {
  until: readonly JobState[];
  ms: number;
  stopped?: () => boolean;
}

/** `onejob.jobs`: create, read, wait for and archive jobs. */
export interface JobsHandle {
  /**
   * Creates the job for (owner, key), or returns the job the key already names
   * (`replayed: true`). With `{ tx }` the job and its `onejob.job.created` event commit
   * or roll back with your transaction.
   */
  create(req: CreateJobRequest, options?: TxOption): Promise<CreateJobResult>;
  get(ownerId: string, id: string, options?: TxOption & JobReadOptions<string>): Promise<JobView>;
  list(ownerId: string, query?: ListJobsQuery): Promise<JobPage>;
  /** The job once it settles (succeeded, failed, cancelled or unknown), or as it is after `ms`. */
  wait(ownerId: string, id: string, ms: number, options?: JobReadOptions<string>): Promise<JobView>;
  /**
   * The job once it is in one of `until` (a state set of src/vocabulary/jobStates.ts), or
   * as it is after `ms`, or at the first re-read after `stopped()` turns true (a client
   * that went away). Every wait for a job is this one loop.
   */
  waitFor(ownerId: string, id: string, options: WaitForOptions): Promise<JobView>;
  /** The job's audit trail, oldest first (created, attempts, unknown outcomes, lost races, abandons). */
  events(ownerId: string, id: string): Promise<JobEventView[]>;
  /** The job's public events and their delivery state per publisher. */
  deliveries(ownerId: string, id: string): Promise<JobDeliveryView[]>;
  /** What watchers see change (state, version, attempts), read without input or result. */
  changeMark(ownerId: string, id: string): Promise<JobChangeMark | undefined>;
  archive(
    finishedBefore: Date,
    options?: { batchSize?: number; maxJobs?: number },
  ): Promise<{ archived: number }>;
  /** Keeps an SDK client's numbered retry of job `jobId` in its audit trail (the SDK drop-in, docs/compat.md). */
  recordClientRetry(
    jobId: string,
    retry: { retryCount: number; requestId: string; attemptId: string | null },
  ): Promise<void>;
}

export type JobsDeps = Pick<EngineDeps, 'pool' | 'operations' | 'metrics' | 'config'> & {
  readonly wakeups: Pick<NotificationHub, 'outbox' | 'jobsQueued' | 'waitForJob'>;
  readonly jobBatcher: JobBatcher;
  /** Reads by id outside a caller's transaction, grouped like intake (src/jobs/createJobReader.ts). */
  readonly jobReader: JobReader;
};

// A typed read names the operation it expects; any other job is not found, like another owner's.
function ofOperation(job: JobView, operation: string | undefined): JobView {
  if (operation !== undefined && job.operation !== operation)
    throw new OnejobError('job_not_found', `No job ${job.id} of operation "${operation}" for this owner.`);
  return job;
}

export function createJobsHandle(deps: JobsDeps): JobsHandle {
  const { pool, operations, metrics, wakeups } = deps;
  const door = new BudgetDoor(pool, deps.config, operations);
  const handle: JobsHandle = {
    wait: (ownerId, id, ms, o) => handle.waitFor(ownerId, id, { ...o, until: SETTLED_JOB_STATES, ms }),
    async create(request, o) {
      refuseReservedKey(request);
      await door.check(request, o?.tx);
      // The job row stores the creation span's traceparent, so its attempts are its children.
      const span = startJobSpan(request);
      const req = span.traceparent ? { ...request, traceparent: span.traceparent } : request;
      let result: CreateJobResult;
      try {
        // The caller's transaction decides alone; everything else joins the group commit.
        result = await (o?.tx ? createJob(o.tx, operations, req) : deps.jobBatcher.create(req));
      } catch (error) {
        if (isOnejobError(error, 'idempotency_key_reused')) metrics.idempotencyConflicts.inc();
        endJobSpan(span, undefined, error);
        throw error;
      }
      endJobSpan(span, result);
      if (result.replayed) metrics.idempotentReplays.inc({ operation: req.operation });
      else metrics.jobsCreated.inc({ operation: req.operation });
      applyAfterWrite({ wakeups }, afterCreate(result, o));
      return result;
    },
    // The caller's transaction reads alone; everything else joins a shared read.
    get: async (ownerId, id, o) =>
      ofOperation(await (o?.tx ? getJob(o.tx, ownerId, id) : deps.jobReader.get(ownerId, id)), o?.operation),
    list: (ownerId, query = {}) => listJobs(pool, ownerId, query),
    async waitFor(ownerId, id, { until, ms, stopped, operation }) {
      const deadline = Date.now() + ms;
      for (;;) {
        const job = ofOperation(await deps.jobReader.get(ownerId, id), operation);
        const left = deadline - Date.now();
        if (until.includes(job.state) || left <= 0 || stopped?.()) return job;
        // Settlements wake this wait (in this process at once, from others by NOTIFY);
        // the re-read every few seconds only covers a notification lost meanwhile.
        await wakeups.waitForJob(id, Math.min(left, WAIT_REREAD_MS));
      }
    },
    archive: (finishedBefore, o) => archiveJobs(pool, finishedBefore, o),
    events: (ownerId, id) => listJobEvents(pool, ownerId, id),
    deliveries: (ownerId, id) => listJobDeliveries(pool, ownerId, id),
    changeMark: (ownerId, id) => jobChangeMark(pool, ownerId, id),
    recordClientRetry: (jobId, retry) => recordClientRetry(pool, jobId, retry),
  };
  return handle;
}
