import type { Queryable } from '../db/createPool.js';
import { OnejobError } from '../errors/OnejobError.js';
import { findJobsById, isJobId } from './findJobsById.js';
import type { JobView } from './jobView.js';

/**
 * The owner's job, live or archived: the batched read (findJobsById.ts) as a batch of one.
 * Another owner's job is indistinguishable from none.
 */
export async function findJob(db: Queryable, ownerId: string, id: string): Promise<JobView | undefined> {
  if (!isJobId(id)) return undefined;
  const [job] = await findJobsById(db, [{ ownerId, id }]);
  return job ?? undefined;
}

export async function getJob(db: Queryable, ownerId: string, id: string): Promise<JobView> {
  const job = await findJob(db, ownerId, id);
  if (!job) throw jobNotFound(id);
  return job;
}

export function jobNotFound(id: string): OnejobError {
  return new OnejobError('job_not_found', `No job ${id} for this owner.`);
}
