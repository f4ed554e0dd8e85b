// Human-readable renderings of jobs and attempts for `onejob jobs ...`.
import type { Attempt, Job } from '../../client/index.js';
import { formatTable, shortTime } from '../formatTable.js';

export function formatJobList(jobs: Job[]): string {
  if (jobs.length === 0) return 'no jobs';
  return formatTable(
    ['ID', 'OPERATION', 'STATE', 'ATTEMPTS', 'KEY', 'CREATED'],
    jobs.map((j) => [
      j.id,
      j.operation,
      j.state,
      attemptSummary(j),
      truncate(j.idempotencyKey, 40),
      shortTime(j.createdAt),
    ]),
  );
}

export function formatJob(job: Job, note?: string): string {
  const lines = [
    `job ${job.id}${note ? `   (${note})` : ''}`,
    `  operation  ${job.operation}`,
    `  state      ${job.state}`,
    `  key        ${job.idempotencyKey}`,
    `  version    ${job.version}`,
    `  created    ${job.createdAt}`,
    `  input      ${truncate(JSON.stringify(job.input), 100)}`,
  ];
  if (job.runAt) lines.splice(6, 0, `  run at     ${job.runAt}`);
  if (job.result !== null) lines.push(`  result     ${truncate(JSON.stringify(job.result), 100)}`);
  if (job.error !== null && job.error !== undefined)
    lines.push(`  error      ${truncate(JSON.stringify(job.error), 100)}`);
  const total = totalCostMicros(job.attempts);
  if (total !== null)
    lines.push(
      `  cost       ${micros(total)} micros over ${job.attempts.length} attempt${job.attempts.length === 1 ? '' : 's'} (losers included; see onejob ledger accounts)`,
    );
  if (job.completedBy)
    lines.push(
      `  winner     attempt ${job.attempts.find((a) => a.id === job.completedBy)?.n ?? job.completedBy}`,
    );
  lines.push('');
  lines.push(job.attempts.length ? formatAttempts(job.attempts, job.completedBy) : '  no attempts yet');
  return lines.join('\n');
}

export function formatAttempts(attempts: Attempt[], winner?: string | null): string {
  return formatTable(
    ['N', 'PROVIDER', 'STATE', 'ORIGIN', 'STARTED', 'FINISHED', 'COST (MICROS)', 'NOTE'],
    attempts.map((a) => [
      a.n,
      a.provider,
      a.state,
      a.origin,
      shortTime(a.startedAt),
      shortTime(a.finishedAt),
      a.costMicros === null || a.costMicros === undefined ? '' : micros(a.costMicros),
      a.id === winner ? 'winner' : errorCode(a.error),
    ]),
  );
}

/**
 * What a job's attempts cost together, in micro-units of the providers' currency
 * (1,000,000 = 1 USD); null while none has a cost. The ledger posts each to usage:<CUR>_MICROS.
 */
export function totalCostMicros(attempts: readonly Attempt[]): number | null {
  const costs = attempts.map((a) => a.costMicros).filter((c): c is number => typeof c === 'number');
  return costs.length ? costs.reduce((sum, c) => sum + c, 0) : null;
}

const micros = (n: number) => n.toLocaleString('en-US');

function attemptSummary(job: Job): string {
  if (job.attempts.length === 0) return '0';
  const states = job.attempts.map((a) => a.state);
  return `${states.length} (${states.join(',')})`;
}

function errorCode(error: unknown): string {
  if (error && typeof error === 'object' && typeof (error as { code?: unknown }).code === 'string')
    return (error as { code: string }).code;
  return '';
}

function truncate(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
}
