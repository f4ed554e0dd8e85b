// Connections on which a statement is planned once and then kept, with plans that only
// walk indexes. The worker's claim and completion batch run here: each is a statement of
// seven to nine steps that PostgreSQL otherwise plans afresh for every batch (a quarter of
// the database's time per job, measured in docs/benchmarks.md), and whose best plan, for a
// planner without statistics, reads whole tables.
//
// The session settings that make a kept plan safe:
// - plan_cache_mode = force_generic_plan: a named statement is planned once per connection,
//   without looking at its parameters, and that plan is reused.
// - enable_seqscan = off, enable_sort = off: a plan made while the tables were empty (a new
//   install, then a bulk enqueue) would otherwise read them whole forever, since the plan is
//   never remade; with both off, the planner takes an index walk wherever one exists, at
//   any size and with any statistics. A step with no index alternative is still allowed.
// - jit = off: a disabled step counts at a cost of 10^10, and a plan that costly is JIT-
//   compiled (seconds per statement).
// test/db/queryPlans.test.ts plans each statement sent here on empty tables, keeps it, and
// checks it against 20,000 rows.
//
// Settings travel in the startup packet (`options`). Poolers in front of PostgreSQL refuse
// or drop that parameter and hand out server connections per transaction, so behind one
// (and with a pool the caller owns) there is no kept-plan pool: the same statements go
// through the shared pool with their settings sent in the transaction (claimJobs.ts).
import type pg from 'pg';
import type { Logger } from 'pino';
import { createPool } from './createPool.js';

/** The session settings of a kept-plan connection, as PostgreSQL names them. */
export const KEPT_PLAN_SETTINGS = {
  plan_cache_mode: 'force_generic_plan',
  enable_seqscan: 'off',
  enable_sort: 'off',
  jit: 'off',
} as const;

/** `-c name=value` for each setting: libpq's `options` startup parameter. */
export const keptPlanOptions = (): string =>
  Object.entries(KEPT_PLAN_SETTINGS)
    .map(([name, value]) => `-c ${name}=${value}`)
    .join(' ');

/**
 * A small pool of kept-plan connections to the same database as the engine's pool (host
 * lists and failover included). Opens no connection until a statement needs one.
 */
export function createKeptPlanPool(options: {
  connectionString: string;
  max: number;
  applicationName?: string;
  logger?: Logger;
}): pg.Pool {
  return createPool({ ...options, sessionOptions: keptPlanOptions() });
}
