// The run summary: operations, faults by kind, violations, throughput during and after faults.
import type { CheckReport } from '../checker/checkHistory.js';
import type { ChaosHistory, DbSnapshot } from '../history/types.js';

export interface RunSummary {
  seed: number;
  durationSeconds: number;
  features: ChaosHistory['features'];
  processes: Record<string, number>;
  operations: Record<string, number>;
  answers: Record<string, number>;
  faults: Record<string, number>;
  failpointsReached: number;
  throughput: {
    /** Accepted new intents (first 202 per key) per second. */
    acceptedPerSecondDuringFaults: number;
    acceptedPerSecondAfterFaults: number;
    /** Jobs reaching a final state per second. */
    settledPerSecondDuringFaults: number;
    settledPerSecondAfterFaults: number;
  };
  checks: {
    check: string;
    examined: number;
    violations: number;
    skipped?: string;
    notes?: Record<string, unknown>;
  }[];
  violations: number;
}

const rate = (n: number, ms: number) => (ms > 0 ? Math.round((n / (ms / 1000)) * 10) / 10 : 0);

export function summarizeRun(
  history: ChaosHistory,
  snapshot: DbSnapshot,
  report: CheckReport,
  processes: Record<string, number>,
): RunSummary {
  const operations: Record<string, number> = {};
  const answers: Record<string, number> = {};
  for (const c of history.calls) {
    operations[c.kind] = (operations[c.kind] ?? 0) + 1;
    answers[c.status === 0 ? 'no answer' : String(c.status)] =
      (answers[c.status === 0 ? 'no answer' : String(c.status)] ?? 0) + 1;
  }
  operations.rolledBackIntakes = history.rolledBack.length;
  operations.providerRequests = history.providerRequests.length;
  for (const j of snapshot.jobs)
    operations[`jobs:${j.operation}`] = (operations[`jobs:${j.operation}`] ?? 0) + 1;
  const inference = (history.inferenceRequests ?? []).filter((r) => !r.verification);
  if (inference.length) {
    operations.modelRequests = inference.length;
    operations.modelRequestsAborted = inference.filter((r) => r.outcome === 'aborted').length;
    operations.modelAnswersLate = inference.filter((r) => r.late && r.outcome === 'answered').length;
    operations.hedgedAttempts = snapshot.attempts.filter((a) => a.origin === 'hedge').length;
    operations.lostRaces = snapshot.attempts.filter((a) => a.state === 'lost_race').length;
    operations.costedAttempts = snapshot.attempts.filter((a) => (a.costMicros ?? 0) > 0).length;
  }
  operations.eventDeliveries = history.deliveries.length;
  const faults: Record<string, number> = {};
  for (const f of history.faults) faults[f.kind] = (faults[f.kind] ?? 0) + 1;

  const firstAccept = new Map<string, number>();
  for (const c of history.calls)
    if (c.kind === 'create' && c.status === 202 && !c.replayed && !firstAccept.has(`${c.owner}/${c.key}`))
      firstAccept.set(`${c.owner}/${c.key}`, c.endedAt);
  const during = (t: number) => t >= history.startedAt && t < history.faultsEndedAt;
  const after = (t: number) => t >= history.faultsEndedAt && t <= history.endedAt;
  const accepted = [...firstAccept.values()];
  const settled = snapshot.jobs.map((j) => j.finishedAt).filter((t): t is number => typeof t === 'number');
  const faultMs = history.faultsEndedAt - history.startedAt;
  const calmMs = history.endedAt - history.faultsEndedAt;

  return {
    seed: history.seed,
    durationSeconds: Math.round((history.endedAt - history.startedAt) / 1000),
    features: history.features,
    processes,
    operations,
    answers,
    faults,
    failpointsReached: history.faults.filter((f) => f.note?.startsWith('reached')).length,
    throughput: {
      acceptedPerSecondDuringFaults: rate(accepted.filter(during).length, faultMs),
      acceptedPerSecondAfterFaults: rate(accepted.filter(after).length, calmMs),
      settledPerSecondDuringFaults: rate(settled.filter(during).length, faultMs),
      settledPerSecondAfterFaults: rate(settled.filter(after).length, calmMs),
    },
    checks: report.results.map((r) => ({
      check: r.check,
      examined: r.examined,
      violations: r.violations.length,
      ...(r.skipped ? { skipped: r.skipped } : {}),
      ...(r.notes ? { notes: r.notes } : {}),
    })),
    violations: report.violations.length,
  };
}

export function formatSummary(s: RunSummary): string {
  const lines = [
    `chaos run, seed ${s.seed}, ${s.durationSeconds} s, processes ${JSON.stringify(s.processes)}`,
    `features: ${Object.entries(s.features)
      .map(([k, v]) => `${k}=${v ? 'yes' : 'no'}`)
      .join(' ')}`,
    `operations: ${JSON.stringify(s.operations)}`,
    `answers: ${JSON.stringify(s.answers)}`,
    `faults: ${JSON.stringify(s.faults)} (failpoints reached: ${s.failpointsReached})`,
    `throughput: accepted ${s.throughput.acceptedPerSecondDuringFaults}/s during faults, ${s.throughput.acceptedPerSecondAfterFaults}/s after; ` +
      `settled ${s.throughput.settledPerSecondDuringFaults}/s during, ${s.throughput.settledPerSecondAfterFaults}/s after`,
    'checks:',
    ...s.checks.map(
      (c) =>
        `  ${c.violations === 0 ? (c.skipped ? 'SKIP' : 'ok  ') : 'FAIL'} ${c.check.padEnd(38)} ${c.skipped ? `skipped: ${c.skipped}` : `examined ${c.examined}, violations ${c.violations}`}`,
    ),
    `violations: ${s.violations}${s.violations ? `  (replay with --seed ${s.seed})` : ''}`,
  ];
  return lines.join('\n');
}
