// No API answer is a 500: a database outage is a 503 with Retry-After, a duplicate is a
// success, a conflict is a 409. A dead process answers nothing (status 0), which clients
// retry with the same key.
import type { ChaosHistory } from '../history/types.js';
import { type CheckResult, result, type Violation } from './checkResult.js';

export function checkNoServerErrors(history: ChaosHistory): CheckResult {
  const check = 'no_500_answers';
  const violations: Violation[] = [];
  const byStatus: Record<string, number> = {};
  for (const call of history.calls) {
    byStatus[String(call.status)] = (byStatus[String(call.status)] ?? 0) + 1;
    if (call.status >= 500 && call.status !== 503)
      violations.push({
        check,
        detail: `${call.kind} ${call.key} to ${call.target} answered ${call.status}${call.code ? ` ${call.code}` : ''}`,
        refs: { key: call.key, target: call.target },
      });
  }
  return result(check, history.calls.length, violations, { byStatus });
}
