// Budgets are never overrun: for every owner, currency and period, what was spent plus
// what is held never passes the limit, after each fault and at the end; and once the run
// settles, every hold of a finished attempt has been posted or voided (only an attempt
// still unknown or running keeps its hold).
import type { BudgetUsageRow, ChaosHistory, DbSnapshot } from '../history/types.js';
import { type CheckResult, result, skipped, type Violation } from './checkResult.js';

const SPEND = 'spend_within_budget';
const HOLDS = 'holds_end_posted_or_voided';
const KEEPS_HOLD = new Set(['unknown', 'running', 'starting']);

function overruns(rows: BudgetUsageRow[], when: string): Violation[] {
  return rows
    .filter((r) => r.spentMicros + r.heldMicros > r.limitMicros)
    .map((r) => ({
      check: SPEND,
      detail: `${when}: owner ${r.ownerId} ${r.currency} ${r.period} from ${r.periodStart}: spent ${r.spentMicros} + held ${r.heldMicros} > limit ${r.limitMicros}`,
      refs: { owner: r.ownerId, currency: r.currency, periodStart: r.periodStart },
    }));
}

export function checkSpendWithinBudget(history: ChaosHistory, snapshot: DbSnapshot): CheckResult {
  if (!snapshot.budgets) return skipped(SPEND, 'budgets are not available in this build');
  const samples = history.budgetSamples ?? [];
  const violations = [
    ...samples.flatMap((s) => overruns(s.rows, `after ${s.after}`)),
    ...overruns(snapshot.budgets, 'at the end'),
  ];
  const examined = snapshot.budgets.length + samples.reduce((n, s) => n + s.rows.length, 0);
  const spent = snapshot.budgets.reduce((n, r) => n + r.spentMicros, 0);
  return result(SPEND, examined, violations, {
    samples: samples.length,
    budgets: snapshot.budgets.length,
    spentMicros: spent,
  });
}

export function checkHoldsResolved(snapshot: DbSnapshot): CheckResult {
  if (!snapshot.openHolds) return skipped(HOLDS, 'holds are not available in this build');
  const violations = snapshot.openHolds
    .filter((h) => !KEEPS_HOLD.has(h.attemptState ?? ''))
    .map((h) => ({
      check: HOLDS,
      detail: `hold ${h.holdId} is neither posted nor voided, and its attempt is ${h.attemptState ?? 'missing'}`,
      refs: { hold: h.holdId },
    }));
  return result(HOLDS, snapshot.openHolds.length, violations, {
    keptByLiveOrUnknownAttempts: snapshot.openHolds.length - violations.length,
  });
}
