// How workers find work: queued jobs whose backoff has passed, and attempts started
// through the API that no worker owns yet. SKIP LOCKED lets any number of workers in
// any number of processes claim side by side without ever taking the same row.
import type pg from 'pg';
import { v7 as uuidv7 } from 'uuid';
import type { HoldOutcome } from '../budgets/takeHolds.js';
import type { Queryable } from '../db/createPool.js';
import { sqlParams } from '../db/sqlParams.js';
import { type LiteralValue, withLiterals } from '../db/withLiterals.js';
import { ATTEMPT_COLUMNS, type AttemptRow } from '../jobs/attemptRow.js';
import type { LockedJob } from '../jobs/lockJob.js';
import { jobStatesInto, LIVE_ATTEMPT_STATES, sqlStates } from '../jobs/stateMachine.js';
import type { Operation, OperationRegistry } from '../operations/operationRegistry.js';
import type { BatchDb } from './batchDb.js';

export interface ClaimedAttempt {
  attempt: AttemptRow;
  job: Pick<LockedJob, 'id' | 'operation' | 'input' | 'traceparent'>;
  /** Seconds between the job becoming claimable and this claim. */
  waitedSeconds: number;
  /** The holds of the attempt's claim batch, taken together before their calls (holdClaimed.ts). */
  holds?: Promise<Map<string, HoldOutcome>>;
}

const prefixed = (alias: string) =>
  ATTEMPT_COLUMNS.split(', ')
    .map((c) => `${alias}.${c}`)
    .join(', ');

// One statement and one commit for a whole batch: pick up to $3 claimable jobs, move them
// to running and count the attempt, insert each attempt (its row is the
// attempt's start in the job's history, onejob.job_history). The attempts go straight to `running`, with this worker's lease and the operation's
// deadline: this commit precedes every call, so the rule "running means the call may have
// left" holds, and a worker that dies after it leaves them unknown (never failed) when
// the lease lapses. What is given up is only the retry of attempts that provably never
// left in the instant between this commit and the calls. $2 holds, per operation this process runs,
// what startAttempt would otherwise decide in TypeScript: the effect, maxAttempts and the
// provider for each attempt number (`providers[(n-1) % length]`, already through the
// failover gate). Jobs the state machine would refuse are not picked: past maxAttempts
// (attempts that met a provider's pause do not count), or exclusive with a live attempt
// (the unique index attempts_one_live_exclusive would refuse that insert anyway, and one
// refusal must not fail the batch). The row lock taken by SKIP LOCKED re-reads the job if
// it changed after the statement's snapshot, so a job started through the API meanwhile
// (state running) is not picked. `OFFSET 0` keeps the live-attempt check a probe of one
// job's attempts: without it PostgreSQL may hash every live attempt once per statement, a
// plan a session keeps, whose cost grows with the attempts table
// (test/db/queryPlans.test.ts). The version is left alone, as in startAttempt: it is the
// attempts' compare-and-swap token.
//
// Who runs next (docs/attempts.md, "Who runs next"):
// - `owners`: the owners with queued jobs, in turn from the one after `after` (where this
//   worker's last claim stopped), wrapping around: a skip-scan of jobs_claimable_by_owner,
//   one probe per owner (its earliest queued job: who it is, and whether a job is due now),
//   so the backlog never sets the claim's cost. The walk stops at `limit` owners with a job due,
//   or after 20 x `limit` owners: owners whose jobs all wait for a later time cost a probe
//   each and no share, and a claim that stops among them lets the next one go on from there.
// - `shares`: each owner with a job due may take its turn's share of the batch (the batch
//   divided among them), and no more than leaves it under `perOwner` live attempts across
//   every worker process (counted from attempts_live, at most `perOwner` of them).
// - `picked`: per owner, its oldest claimable jobs in index order, up to its share, ranked
//   1, 2, ... within the owner: the batch is taken by rank, then by turn (round-robin).
// - `paced`: a job whose next provider is paused (provider_pauses) is left queued.
// - `slots`: a provider with a cap in `providerCaps` (`maxConcurrency`) lends a slot row per attempt,
//   taken under its row lock (FOR UPDATE SKIP LOCKED): two claims in flight never take the
//   same slot, which counting live attempts could not promise. Whether a slot's holder
//   still holds it is read in a fresh snapshot (migration 0019 says why). A job without a slot stays
//   queued and burns no attempt. The slot names the attempt that holds it (`held`).
/** The claim's parameters, by name (`claimValues` gives their values). */
export const CLAIM_PARAMS = [
  'operations',
  'config',
  'limit',
  'attemptIds',
  'workerId',
  'leaseMs',
  'after',
  'perOwner',
  'providerCaps',
] as const;
export type ClaimParam = (typeof CLAIM_PARAMS)[number];
type Param = Readonly<Record<ClaimParam, string>>;

/** The claim alone: its parameters are the statement's, from $1. */
export const CLAIM_SQL_PARAMS = sqlParams(CLAIM_PARAMS);

/**
 * The claim's WITH members, without WITH (the statement needs `WITH RECURSIVE`): `p` names
 * the placeholder of each parameter. The worker's completion that also claims (completeAndClaim.ts) puts them after its own.
 */
export function claimCtes(p: Param = CLAIM_SQL_PARAMS.$, capped = true): string {
  return `${turnCtes(p)}${paceCtes(p, capped)}${startCtes(p, capped)}`;
}

/** `owners`, `shares` and `picked`: whose jobs, how many each, which ones. */
function turnCtes(p: Param): string {
  const live = sqlStates(['starting', 'running']);
  // One probe of jobs_claimable_by_owner per owner: the first queued job after `after` in
  // (owner, run_after) order is the next owner with queued jobs and its earliest run_after
  // (is one of its jobs due now?). Only that index gives the order without a sort, so no
  // plan (one made with statistics that call one owner half the queue) reads
  // jobs_claimable, where another owner's whole backlog may come first. The second branch,
  // read only when the first finds nothing, wraps around to the lowest owner.
  const probe = (after: string, wrapped: string, wrap: string) => `
      SELECT x.owner_id, x.wrapped, x.run_after <= now() AS due FROM (
        (SELECT j.owner_id, j.run_after, ${wrapped} AS wrapped FROM onejob.jobs j
         WHERE j.lane = 'queued' AND j.owner_id > ${after} ORDER BY j.owner_id, j.run_after LIMIT 1)
        UNION ALL
        (SELECT j.owner_id, j.run_after, true FROM onejob.jobs j
         WHERE j.lane = 'queued' AND ${wrap} ORDER BY j.owner_id, j.run_after LIMIT 1)
      ) x
      WHERE NOT (x.wrapped AND x.owner_id > ${p.after}::text)
      LIMIT 1`;
  return `owners (owner_id, turn, wrapped, due, dues) AS (
  SELECT w.owner_id, 1, w.wrapped, w.due, w.due::int FROM (${probe(`${p.after}::text`, 'false', 'true')}
  ) w
  UNION ALL
  SELECT nx.owner_id, o.turn + 1, nx.wrapped, nx.due, o.dues + nx.due::int
  FROM owners o
  CROSS JOIN LATERAL (${probe('o.owner_id', 'o.wrapped', 'NOT o.wrapped')}
  ) nx
  WHERE o.dues < ${p.limit}::int AND o.turn < 20 * ${p.limit}::int
),
shares AS (
  SELECT o.owner_id, o.turn, f.fair, f.fair < ${p.limit}::int AS split,
         least(f.fair, CASE WHEN ${p.perOwner}::int IS NULL THEN f.fair
                            ELSE ${p.perOwner}::int - (SELECT count(*)::int FROM (
                                   SELECT 1 FROM onejob.attempts a
                                   WHERE a.owner_id = o.owner_id AND a.state IN (${live})
                                   LIMIT ${p.perOwner}::int) l) END) AS share
  FROM owners o
  CROSS JOIN (SELECT ceil(${p.limit}::float8 / greatest(count(*), 1))::int AS fair FROM owners WHERE due) f
  WHERE o.due
),
picked AS (
  SELECT s.turn, s.fair, x.*
  FROM shares s
  CROSS JOIN LATERAL (
    SELECT y.*, row_number() OVER () AS rank FROM (
      SELECT j.id, j.owner_id, j.operation, j.attempt_count,
             extract(epoch FROM clock_timestamp() - j.run_after)::float8 AS waited
      FROM onejob.jobs j
      WHERE j.owner_id >= s.owner_id AND j.owner_id <= s.owner_id AND j.lane = 'queued' AND j.run_after <= now()
        AND j.operation = ANY(${p.operations}::text[]) AND j.completed_by IS NULL
        AND j.attempt_count - j.throttled_count < (${p.config}::jsonb -> j.operation ->> 'maxAttempts')::int
        AND NOT ((${p.config}::jsonb -> j.operation ->> 'exclusive')::boolean AND EXISTS (
          SELECT 1 FROM onejob.attempts a
          WHERE a.job_id = j.id AND a.state IN (${sqlStates(LIVE_ATTEMPT_STATES)}) OFFSET 0))
      -- The owner as a range and in the order, as in due: only this owner's jobs are read.
      ORDER BY j.owner_id, j.run_after, j.created_at
      LIMIT greatest(s.share, 0)
      FOR NO KEY UPDATE SKIP LOCKED
    ) y
  ) x
),
`;
}

/**
 * `paced`, `slots` and `chosen`: the picked jobs whose provider is neither paused nor full.
 * Without a capped provider (`capped` false) there are no slots to take: the statement
 * leaves them out, and with them a probe of the slot table per claimed job.
 */
function paceCtes(p: Param, capped: boolean): string {
  const paced = `paced AS (
  SELECT pk.*, pv.provider${capped ? ',\n         row_number() OVER (PARTITION BY pv.provider ORDER BY pk.rank, pk.turn) AS in_line' : ''}
  FROM picked pk
  CROSS JOIN LATERAL (
    SELECT ${p.config}::jsonb -> pk.operation -> 'providers'
             ->> (pk.attempt_count % jsonb_array_length(${p.config}::jsonb -> pk.operation -> 'providers')) AS provider
  ) pv
  -- The paused providers are read once per statement (an uncorrelated subquery: one scan
  -- of a table with a row per provider ever paused), not probed once per picked job.
  WHERE pv.provider <> ALL(ARRAY(SELECT z.provider FROM onejob.provider_pauses z WHERE z.until > now()))
),
`;
  if (!capped)
    return `${paced}chosen AS (
  SELECT c.*, row_number() OVER (ORDER BY c.rank, c.turn) AS k FROM (
    -- Never a capped provider's job without a slot, should this statement meet one.
    SELECT pc.*, NULL::int AS slot_no FROM paced pc
    WHERE NOT (${p.providerCaps}::jsonb ? pc.provider)
    ORDER BY pc.rank, pc.turn
    LIMIT ${p.limit}
  ) c
),
`;
  return `${paced}slots AS (
  SELECT t.provider, t.slot_no, row_number() OVER (PARTITION BY t.provider ORDER BY t.slot_no) AS in_line
  -- As many slots as the batch has jobs for the provider: a slot locked and left unused
  -- would be skipped by another worker's claim meanwhile.
  FROM (SELECT provider, count(*) AS wanted FROM paced WHERE ${p.providerCaps}::jsonb ? provider
        GROUP BY provider) need
  CROSS JOIN LATERAL (
    SELECT s.provider, s.slot_no FROM onejob.provider_slots s
    WHERE s.provider = need.provider AND s.slot_no <= (${p.providerCaps}::jsonb ->> need.provider)::int
      AND (s.holder IS NULL OR NOT onejob.provider_slot_held(s.holder))
    ORDER BY s.slot_no
    LIMIT need.wanted
    FOR UPDATE SKIP LOCKED
  ) t
),
chosen AS (
  SELECT c.*, row_number() OVER (ORDER BY c.rank, c.turn) AS k FROM (
    SELECT pc.*, sl.slot_no FROM paced pc
    LEFT JOIN slots sl ON sl.provider = pc.provider AND sl.in_line = pc.in_line
    WHERE sl.slot_no IS NOT NULL OR NOT (${p.providerCaps}::jsonb ? pc.provider)
    ORDER BY pc.rank, pc.turn
    LIMIT ${p.limit}
  ) c
),
`;
}

/** `moved` to `started` (and `held`): the chosen jobs running, their attempts and slots. */
function startCtes(p: Param, capped: boolean): string {
  // The chosen ids as one array: the update probes the primary key for each, whatever
  // the planner guesses of how many were chosen (a join it thought large read every job).
  return `moved AS (
  UPDATE onejob.jobs j SET state = 'running', attempt_count = j.attempt_count + 1, updated_at = now()
  WHERE j.id = ANY(ARRAY(SELECT c.id FROM chosen c))
    AND j.state IN (${sqlStates(jobStatesInto('running'))})
  RETURNING j.id, j.owner_id, j.operation, j.input, j.traceparent, j.version, j.attempt_count
),
numbered AS (
  SELECT m.*, c.waited, c.k, c.provider, c.slot_no, ${p.config}::jsonb -> m.operation AS cfg
  FROM moved m JOIN chosen c ON c.id = m.id
),
started AS (
  INSERT INTO onejob.attempts (id, job_id, owner_id, n, provider, exclusive, origin, state, job_version, lease_owner, lease_expires_at, deadline_at)
  SELECT (${p.attemptIds}::uuid[])[k], id, owner_id, attempt_count, provider,
         (cfg ->> 'exclusive')::boolean,
         CASE WHEN attempt_count = 1 THEN 'worker' ELSE 'retry' END,
         'running', version, ${p.workerId}::text, now() + make_interval(secs => ${p.leaseMs}::float8 / 1000),
         now() + make_interval(secs => (cfg ->> 'timeoutMs')::float8 / 1000)
  FROM numbered
  RETURNING ${ATTEMPT_COLUMNS}
)${
    capped
      ? `,
held AS (
  UPDATE onejob.provider_slots s SET holder = st.id, taken_at = now()
  FROM started st JOIN numbered nb ON nb.id = st.job_id
  WHERE s.provider = nb.provider AND s.slot_no = nb.slot_no
  RETURNING s.slot_no
)`
      : ''
  }`;
}

/** The claimed attempts, with their jobs' operation, input and trace context, from `claimCtes`. */
export const CLAIMED_ROWS_SQL = `SELECT ${prefixed('s')}, nb.operation, nb.input, nb.traceparent, nb.waited, nb.k
FROM started s JOIN numbered nb ON nb.id = s.job_id`;

/**
 * What the claim loop needs next, as two columns a claim returns even when it claimed
 * nothing: the owner the next claim starts after (the last one served when the batch was
 * full; else the last one walked, so owners with nothing to run do not hold the round
 * back), and whether an owner had more jobs than its turn's share (the queue is not dry).
 */
export function claimTurnColumns(p: Param = CLAIM_SQL_PARAMS.$): string {
  return `CASE WHEN (SELECT count(*) FROM chosen) >= ${p.limit}::int
       THEN (SELECT c.owner_id FROM chosen c WHERE c.k = (SELECT max(k) FROM chosen))
       ELSE (SELECT o.owner_id FROM owners o WHERE o.turn = (SELECT max(turn) FROM owners)) END AS next_after,
  EXISTS (SELECT 1 FROM shares sh WHERE sh.split AND sh.share >= sh.fair
            AND (SELECT count(*) FROM picked pk WHERE pk.turn = sh.turn) >= sh.fair) AS more`;
}

/** The claim on its own; `capped`: some provider this worker calls has a `maxConcurrency`. */
export const claimBatchSql = (capped: boolean) => `
WITH RECURSIVE ${claimCtes(CLAIM_SQL_PARAMS.$, capped)}
SELECT ${claimTurnColumns()}, c.*
FROM (SELECT 1) AS one LEFT JOIN (${CLAIMED_ROWS_SQL}) AS c ON true
ORDER BY c.k`;

/** The claim with provider slots: the statement the plan tests read. */
export const CLAIM_BATCH_SQL = claimBatchSql(true);

/**
 * A claiming statement in its two shapes, as a named statement for `batchQuery`: with the
 * provider slots when a provider the worker may call has a `maxConcurrency`, else without
 * them (named apart, so a kept-plan connection keeps a plan of each).
 */
export function claimStatement(
  name: string,
  build: (capped: boolean) => string,
): (worker: Pick<ClaimRequest, 'limits'>) => { name: string; text: string } {
  const capped = { name, text: build(true) };
  const uncapped = { name: `${name}-uncapped`, text: build(false) };
  return (worker) => (Object.keys(worker.limits?.providers ?? {}).length > 0 ? capped : uncapped);
}

const claimBatch = claimStatement('onejob-claim-batch', claimBatchSql);

// The claim must walk each owner's queued jobs in index order and stop after its share.
// Without statistics (a queue filled faster than autovacuum analyses it), PostgreSQL guesses a
// handful of queued jobs, finds reading them all and sorting them as cheap as walking the
// index, and then reads, sorts and filters the whole backlog (with a live-attempt probe per
// job) for every claim: the drain slowed to a third. No estimate can make that plan
// cheaper than the walk when sorting is off, and every sort left in the statement (the
// numbering of a handful of claimed rows) has no alternative, so nothing else changes.
// A disabled step still counts, at a cost of 10^10, and a plan that costly is compiled
// with JIT (3 s per claim): JIT is off for the claim too. On the worker's kept-plan
// connections the session has these settings (src/db/keptPlanPool.ts); elsewhere the
// claim runs in a transaction of its own with them, sent with them as one simple query
// (test/db/queryPlans.test.ts checks both).
export const CLAIM_PLANNER_SQL = 'SET LOCAL enable_sort = off; SET LOCAL jit = off';

/**
 * Sends one of the worker's batch statements (the claim, or the completion that claims).
 * A kept-plan connection (src/db/keptPlanPool.ts) has the planner settings for its whole
 * session: the statement is named, planned once. Elsewhere it is one simple query, the
 * settings and then the statement, in one implicit transaction and one round trip (BEGIN,
 * SET and COMMIT apart cost three more); a failure rolls the whole string back and leaves
 * nothing open on the connection.
 */
export async function batchQuery<R extends pg.QueryResultRow>(
  target: BatchDb,
  name: string,
  text: string,
  values: LiteralValue[],
): Promise<R[]> {
  if (target.keptPlans) return (await target.db.query<R>({ name, text, values })).rows;
  const results = (await target.db.query(
    `${CLAIM_PLANNER_SQL};\n${withLiterals(text, values)}`,
  )) as unknown as pg.QueryResult<R>[];
  return results[results.length - 1]!.rows;
}

export type ClaimRow = AttemptRow & {
  operation: string;
  input: Record<string, unknown>;
  traceparent: string | null;
  waited: number;
  k: number;
  next_after: string | null;
  more: boolean;
};

/**
 * Where a worker's claims stand in the owners' round: the owner served last (the next
 * claim starts after it), and whether the last claim left an owner with more jobs than
 * its turn's share (a short batch then does not mean the queue is dry). Each claim updates it.
 */
export interface OwnerTurns {
  after: string;
  more: boolean;
}

export const newOwnerTurns = (): OwnerTurns => ({ after: '', more: false });

/** The limits a claim keeps across every worker process (docs/attempts.md, "Who runs next"). */
export interface ClaimLimits {
  /** Live attempts one owner may have at once; null: no cap. */
  perOwner: number | null;
  /** Providers with a `maxConcurrency`: calls in flight at once, per provider. */
  providers: Record<string, number>;
}

/** Who claims, for how long and how many: what a claim statement needs besides the operations. */
export interface ClaimRequest {
  id: string;
  leaseMs: number;
  limit: number;
  rotation: (operation: Operation) => Promise<string[]>;
  /** This worker's place in the owners' round; updated by each claim. Default: a fresh one. */
  turns?: OwnerTurns;
  /** Default: no cap per owner, no provider capped. */
  limits?: ClaimLimits;
}

/** What a claim found besides the attempts it started (`claimTurnColumns`, on every row). */
export function noteTurns(worker: ClaimRequest, rows: Pick<ClaimRow, 'next_after' | 'more'>[]): void {
  const row = rows[0];
  if (!worker.turns) return;
  worker.turns.more = row?.more === true;
  if (row?.next_after != null) worker.turns.after = row.next_after;
}

/**
 * The values of the claim's parameters (`CLAIM_PARAMS`), by name: per operation this process
 * runs, what startAttempt would otherwise decide in TypeScript, new attempt and event ids,
 * the owner to start after and the limits.
 */
export async function claimValues(
  operations: OperationRegistry,
  worker: ClaimRequest,
): Promise<Record<ClaimParam, LiteralValue>> {
  // Only operations this process runs: code operations live in the processes that define them.
  const config: Record<
    string,
    { exclusive: boolean; maxAttempts: number; timeoutMs: number; providers: string[] }
  > = {};
  for (const name of operations.names()) {
    const operation = operations.get(name);
    if (!operation || operation.providers.length === 0) continue;
    config[name] = {
      exclusive: operation.effect === 'exclusive',
      maxAttempts: operation.maxAttempts,
      timeoutMs: operation.attemptTimeoutMs,
      providers: await worker.rotation(operation),
    };
  }
  const ids = Array.from({ length: worker.limit }, () => uuidv7());
  return {
    operations: Object.keys(config),
    config,
    limit: worker.limit,
    attemptIds: ids,
    workerId: worker.id,
    leaseMs: worker.leaseMs,
    after: worker.turns?.after ?? '',
    perOwner: worker.limits?.perOwner ?? null,
    providerCaps: worker.limits?.providers ?? {},
  };
}

/** A row of CLAIMED_ROWS_SQL as the worker runs it. */
export function claimedAttempt({
  operation,
  input,
  traceparent,
  waited,
  k: _k,
  next_after: _nextAfter,
  more: _more,
  ...attempt
}: ClaimRow): ClaimedAttempt {
  return {
    attempt,
    job: { id: attempt.job_id, operation, input, traceparent },
    waitedSeconds: Math.max(0, waited),
  };
}

/**
 * Claims up to `limit` queued jobs in one statement and one commit, and starts each
 * one's next attempt, already `running`, under this worker's lease: call their
 * providers only after this returns. `rotation` gives,
 * per operation, the provider of attempt n at index (n-1) % length. `target.keptPlans`:
 * `target.db` is a kept-plan connection (src/db/keptPlanPool.ts).
 */
export async function claimQueuedJobs(
  target: BatchDb,
  operations: OperationRegistry,
  worker: ClaimRequest,
): Promise<ClaimedAttempt[]> {
  if (worker.limit <= 0) return [];
  const values = CLAIM_SQL_PARAMS.values(await claimValues(operations, worker));
  const { name, text } = claimBatch(worker);
  const rows = await batchQuery<ClaimRow>(target, name, text, values);
  noteTurns(worker, rows);
  // One row even when nothing was claimed: it carries the turn columns only.
  return rows.filter((r) => r.id !== null).map(claimedAttempt);
}

// The operation check is a probe of the one job of each candidate (OFFSET 0 keeps it one):
// written as IN, a plan made without statistics hashed every job of those operations.
// An attempt for a paused provider waits; one for a capped provider ($4, maxConcurrency)
// is taken only with a free slot of it, which it then holds (as in the batch claim).
const CLAIM_UNOWNED_SQL = `
WITH picked AS (
  SELECT id, provider FROM onejob.attempts
  WHERE state = 'starting' AND lease_owner IS NULL
    AND ($3::text[] IS NULL OR EXISTS (
      SELECT 1 FROM onejob.jobs j WHERE j.id = attempts.job_id AND j.operation = ANY($3::text[]) OFFSET 0))
    AND NOT EXISTS (
      SELECT 1 FROM onejob.provider_pauses z WHERE z.provider = attempts.provider AND z.until > now())
  ORDER BY started_at
  LIMIT 1
  FOR UPDATE SKIP LOCKED
),
slot AS (
  SELECT s.provider, s.slot_no FROM onejob.provider_slots s
  WHERE s.provider = (SELECT provider FROM picked) AND $4::jsonb ? s.provider
    AND s.slot_no <= ($4::jsonb ->> s.provider)::int
    AND (s.holder IS NULL OR NOT onejob.provider_slot_held(s.holder))
  ORDER BY s.slot_no
  LIMIT 1
  FOR UPDATE SKIP LOCKED
),
admitted AS (
  SELECT p.id FROM picked p WHERE NOT ($4::jsonb ? p.provider) OR EXISTS (SELECT 1 FROM slot)
),
held AS (
  UPDATE onejob.provider_slots s SET holder = (SELECT id FROM admitted), taken_at = now()
  FROM slot WHERE s.provider = slot.provider AND s.slot_no = slot.slot_no
  RETURNING s.slot_no
)
UPDATE onejob.attempts a SET lease_owner = $1, lease_expires_at = now() + make_interval(secs => $2::float8 / 1000)
FROM admitted WHERE a.id = admitted.id
RETURNING ${ATTEMPT_COLUMNS.split(', ')
  .map((c) => `a.${c}`)
  .join(', ')},
  extract(epoch FROM clock_timestamp() - a.started_at)::float8 AS waited`;

const JOB_SQL = 'SELECT id, operation, input, traceparent FROM onejob.jobs WHERE id = $1';

/**
 * Takes one attempt that was started through the API and waits for a worker, unless its
 * provider is paused or (`caps`) has no free slot: then it waits, and so do those after it.
 */
export async function claimUnownedAttempt(
  db: Queryable,
  worker: { id: string; leaseMs: number; operations?: string[]; caps?: Record<string, number> },
): Promise<ClaimedAttempt | undefined> {
  const { rows } = await db.query<AttemptRow & { waited: number }>(CLAIM_UNOWNED_SQL, [
    worker.id,
    worker.leaseMs,
    worker.operations ?? null,
    worker.caps ?? {},
  ]);
  const row = rows[0];
  if (!row) return undefined;
  const { waited, ...attempt } = row;
  const job = await db.query<ClaimedAttempt['job']>(JOB_SQL, [attempt.job_id]);
  if (!job.rows[0]) return undefined;
  return { attempt, job: job.rows[0], waitedSeconds: Math.max(0, waited) };
}
