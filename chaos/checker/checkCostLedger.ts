// The ledger sums to zero with attempt costs in it: per owner and cost currency, debits
// equal credits, and what the ledger holds equals what the owner's finished attempts cost,
// so no cost is missing, doubled or posted for work that never happened.
import type { ChaosHistory, DbSnapshot } from '../history/types.js';
import { FINISHED } from './checkAttemptCosts.js';
import { type CheckResult, result, skipped, type Violation } from './checkResult.js';

const CHECK = 'ledger_sums_to_zero_with_costs';
const isCostCurrency = (currency: string) => currency.endsWith('_MICROS');

export function checkCostLedger(history: ChaosHistory, snapshot: DbSnapshot): CheckResult {
  if (!history.features.worker) return skipped(CHECK, 'no worker ran attempts in this build');
  if (!history.features.ledger || snapshot.ledger === null || snapshot.costTransfers === undefined)
    return skipped(CHECK, 'the ledger is not available in this build');
  const violations: Violation[] = [];
  const owners = new Map(snapshot.jobs.map((j) => [j.id, j.ownerId]));
  const expected = new Map<string, number>();
  for (const a of snapshot.attempts) {
    if (!FINISHED.has(a.state) || !((a.costMicros ?? 0) > 0)) continue;
    const owner = owners.get(a.jobId) ?? '?';
    expected.set(owner, (expected.get(owner) ?? 0) + a.costMicros!);
  }
  const held = new Map<string, number>();
  for (const row of snapshot.ledger.filter((r) => isCostCurrency(r.currency))) {
    if (row.debits !== row.credits)
      violations.push({
        check: CHECK,
        detail: `owner ${row.ownerId} ${row.currency}: debits ${row.debits} != credits ${row.credits}`,
        refs: { owner: row.ownerId, currency: row.currency },
      });
    held.set(row.ownerId, (held.get(row.ownerId) ?? 0) + row.debits);
  }
  for (const owner of new Set([...expected.keys(), ...held.keys()])) {
    const want = expected.get(owner) ?? 0;
    const got = held.get(owner) ?? 0;
    if (want !== got)
      violations.push({
        check: CHECK,
        detail: `owner ${owner}: finished attempts cost ${want} micros, the ledger's cost accounts hold ${got}`,
        refs: { owner, expected: want, held: got },
      });
  }
  const total = [...expected.values()].reduce((n, v) => n + v, 0);
  return result(CHECK, expected.size, violations, {
    costMicros: total,
    costTransfers: snapshot.costTransfers.length,
  });
}
