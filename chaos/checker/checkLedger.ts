// Double entry: for every owner and currency, debits equal credits, whatever crashed.
import type { ChaosHistory, DbSnapshot } from '../history/types.js';
import { type CheckResult, result, skipped, type Violation } from './checkResult.js';

export function checkLedgerBalanced(history: ChaosHistory, snapshot: DbSnapshot): CheckResult {
  const check = 'ledger_sums_to_zero';
  if (!history.features.ledger || snapshot.ledger === null)
    return skipped(check, 'the ledger is not available in this build');
  const violations: Violation[] = [];
  for (const row of snapshot.ledger) {
    if (row.debits !== row.credits)
      violations.push({
        check,
        detail: `owner ${row.ownerId} ${row.currency}: debits ${row.debits} != credits ${row.credits}`,
        refs: { owner: row.ownerId, currency: row.currency },
      });
  }
  const transfers = history.calls.filter((c) => c.kind === 'transfer');
  return result(check, snapshot.ledger.length, violations, {
    transferCalls: transfers.length,
    transfersReplayed: transfers.filter((c) => c.replayed).length,
  });
}
