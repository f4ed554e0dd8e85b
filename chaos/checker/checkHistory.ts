// Runs every invariant over a recorded chaos history and the database snapshot.
import type { ChaosHistory, DbSnapshot } from '../history/types.js';
import { checkNoServerErrors } from './checkAnswers.js';
import { checkAttemptCosts } from './checkAttemptCosts.js';
import { checkHoldsResolved, checkSpendWithinBudget } from './checkBudgets.js';
import { checkCostLedger } from './checkCostLedger.js';
import { checkEventsAppliedOnce, checkEventsDelivered, checkNoRolledBackEvents } from './checkEvents.js';
import { checkExclusiveAttempts } from './checkExclusive.js';
import { checkAcknowledgedSurviveFailover } from './checkFailover.js';
import { checkHedgeWinners } from './checkHedgeWinners.js';
import { checkInboxOneJobPerEvent, checkOneJobIdPerClientKey, checkOneJobPerKey } from './checkKeys.js';
import { checkLedgerBalanced } from './checkLedger.js';
import { checkLostRaces } from './checkLostRaces.js';
import type { CheckResult, Violation } from './checkResult.js';
import { checkUnknownResolvedOrListed } from './checkUnknown.js';
import { checkVerifiedProviders } from './checkVerifiedProviders.js';
import { checkOneWinnerPerJob } from './checkWinners.js';

export interface CheckReport {
  results: CheckResult[];
  violations: Violation[];
}

export function checkHistory(history: ChaosHistory, snapshot: DbSnapshot): CheckReport {
  const results = [
    checkOneJobPerKey(snapshot),
    checkOneJobIdPerClientKey(history, snapshot),
    checkInboxOneJobPerEvent(history, snapshot),
    checkAcknowledgedSurviveFailover(history, snapshot),
    checkOneWinnerPerJob(history, snapshot),
    checkHedgeWinners(history, snapshot),
    checkLostRaces(history, snapshot),
    checkVerifiedProviders(history, snapshot),
    checkExclusiveAttempts(history, snapshot),
    checkEventsDelivered(history, snapshot),
    checkEventsAppliedOnce(history, snapshot),
    checkNoRolledBackEvents(history, snapshot),
    checkLedgerBalanced(history, snapshot),
    checkAttemptCosts(history, snapshot),
    checkCostLedger(history, snapshot),
    checkSpendWithinBudget(history, snapshot),
    checkHoldsResolved(snapshot),
    checkNoServerErrors(history),
    checkUnknownResolvedOrListed(history, snapshot),
  ];
  return { results, violations: results.flatMap((r) => r.violations) };
}
