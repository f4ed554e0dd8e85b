// One statement and one commit per turn of a busy worker: the batch that completes
// attempts (jobs/completeWinners.ts) also claims as many queued jobs as those attempts
// free (claimJobs.ts). Without it each turn is two statements, each with its commit, and
// the claim can only start once the completion has committed: a job's slot sat idle
// for a whole extra statement.
//
// The two halves are the statements they come from, unchanged, side by side in one WITH:
// the completion's members first (its compare-and-swap on each job, then the attempt,
// then the events), then the claim's (which skips locked jobs, so it never waits on the
// rows the completion holds). Either both commit or neither does: a batch whose
// completion aborts (see completeWinners.ts) claims nothing, and the caller completes
// its attempts one by one and lets the claim loop claim as usual.
import type { LiteralValue } from '../db/withLiterals.js';
import { type Offered, WIN_MANY_CTES, WIN_PARAMS, winManyValues } from '../jobs/completeWinners.js';
import type { OperationRegistry } from '../operations/operationRegistry.js';
import type { BatchDb } from './batchDb.js';
import {
  batchQuery,
  CLAIM_PARAMS,
  CLAIMED_ROWS_SQL,
  type ClaimedAttempt,
  type ClaimRequest,
  type ClaimRow,
  claimCtes,
  claimedAttempt,
  claimStatement,
  claimTurnColumns,
  claimValues,
  noteTurns,
} from './claimJobs.js';

// The claim's parameters come after the completion's.
const CLAIM_AFTER_WIN = WIN_PARAMS.followedBy(CLAIM_PARAMS);

// The winners as one JSON array on every row, and one row even when nothing was claimed.
// `capped`: the claim takes provider slots (claimJobs.ts, `claimStatement`).
const completeAndClaimSql = (capped: boolean) => `
WITH RECURSIVE ${WIN_MANY_CTES},
${claimCtes(CLAIM_AFTER_WIN.$, capped)}
SELECT (SELECT coalesce(jsonb_agg(jsonb_build_array(attempt_id, version)), '[]'::jsonb) FROM won) AS won,
  ${claimTurnColumns(CLAIM_AFTER_WIN.$)}, c.*
FROM (SELECT 1) AS one LEFT JOIN (${CLAIMED_ROWS_SQL}) AS c ON true`;

export const COMPLETE_AND_CLAIM_SQL = completeAndClaimSql(true);
const completeAndClaimBatch = claimStatement('onejob-complete-and-claim', completeAndClaimSql);

export interface CompletedAndClaimed {
  /** Attempts that won, with their job's new version (as completeWinners returns them). */
  winners: Map<string, number>;
  /** Queued jobs claimed, their attempts already running under this worker's lease. */
  claimed: ClaimedAttempt[];
}

type Row = { won: [string, number][] } & (ClaimRow | { [K in keyof ClaimRow]: null });

/**
 * Offers results like completeWinners and, in the same statement, claims up to
 * `worker.limit` queued jobs like claimQueuedJobs. Throws if the statement failed as a
 * whole: then nothing was written and nothing was claimed.
 */
export async function completeAndClaim(
  target: BatchDb,
  operations: OperationRegistry,
  offered: Offered[],
  worker: ClaimRequest,
): Promise<CompletedAndClaimed> {
  const values = [
    ...(winManyValues(offered) as LiteralValue[]),
    ...CLAIM_AFTER_WIN.values(await claimValues(operations, worker)),
  ];
  const { name, text } = completeAndClaimBatch(worker);
  const rows = await batchQuery<Row>(target, name, text, values);
  const winners = new Map((rows[0]?.won ?? []).map(([id, version]) => [id, Number(version)]));
  noteTurns(worker, rows as Pick<ClaimRow, 'next_after' | 'more'>[]);
  const claimedRows = rows
    .filter((r): r is { won: [string, number][] } & ClaimRow => r.id !== null)
    .sort((a, b) => a.k - b.k);
  const claimed = claimedRows.map(({ won: _won, ...row }) => claimedAttempt(row));
  return { winners, claimed };
}
