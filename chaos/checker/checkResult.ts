// The outcome of one invariant check over a chaos history.
import { groupByKey } from '../../src/db/groupCommit.js';

export interface Violation {
  /** The invariant broken, e.g. `one_job_per_key`. */
  check: string;
  detail: string;
  /** Ids that let a reader find the evidence (job, attempt, event, key). */
  refs?: Record<string, string | number>;
}

export interface CheckResult {
  check: string;
  /** What was examined: keys, jobs, events... */
  examined: number;
  violations: Violation[];
  /** Why the check did not run (a feature not present), never a silent pass. */
  skipped?: string;
  /** Things worth listing that are not violations (unknown jobs awaiting an operator, 503s...). */
  notes?: Record<string, unknown>;
}

export function result(
  check: string,
  examined: number,
  violations: Violation[],
  notes?: Record<string, unknown>,
): CheckResult {
  return notes ? { check, examined, violations, notes } : { check, examined, violations };
}

export function skipped(check: string, why: string): CheckResult {
  return { check, examined: 0, violations: [], skipped: why };
}

export function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  return new Map(groupByKey(items, key).map((group) => [key(group[0]!), group]));
}
