import { type BatcherOptions, createBatcher } from '../db/createBatcher.js';
import type { Queryable } from '../db/createPool.js';
import { findJobsById, isJobId, type JobRef } from './findJobsById.js';
import { findJob, jobNotFound } from './getJob.js';
import type { JobView } from './jobView.js';

export type JobReaderOptions = BatcherOptions;

export interface JobReader {
  /** The owner's job, live or archived, read through a shared batch; `job_not_found` otherwise. */
  get(ownerId: string, id: string): Promise<JobView>;
}

// A job the batch did not find is a definite answer (its request's 404), unlike an
// undefined outcome, which would send the request alone.
type Found = { job: JobView | null };

/**
 * Group reads of jobs by id (src/db/createBatcher.ts): concurrent reads share one statement
 * (findJobsById.ts), and each gets the answer it would have had alone, its own 404
 * included. The same (owner, id) twice in a batch is read once. A batch whose statement
 * fails sends each read alone, as a batch of one.
 */
export function createJobReader(db: Queryable, options: JobReaderOptions = {}): JobReader {
  const batcher = createBatcher<JobRef, Found, JobView>(
    {
      key: (r) => `${r.ownerId}\u0000${r.id.toLowerCase()}`,
      write: async (refs) => (await findJobsById(db, refs)).map((job) => ({ job })),
      answer: ({ job }, ref, first) => {
        if (!job) throw jobNotFound(ref.id);
        // The same job twice in a batch: each caller gets an object of its own.
        return first ? job : structuredClone(job);
      },
      alone: async (ref) => {
        const job = await findJob(db, ref.ownerId, ref.id);
        if (!job) throw jobNotFound(ref.id);
        return job;
      },
    },
    options,
  );
  return {
    get(ownerId, id) {
      // An id that cannot name a job is not found without joining (and failing) a batch.
      if (!isJobId(id)) return Promise.reject(jobNotFound(id));
      return batcher.submit({ ownerId, id });
    },
  };
}
