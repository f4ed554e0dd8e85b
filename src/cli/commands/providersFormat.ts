import type { VerificationReport } from '../../client/index.js';

const MARK: Record<string, string> = {
  passed: 'ok  ',
  failed: 'FAIL',
  skipped: 'skip',
  waived: 'waiv',
  not_applicable: 'n/a ',
};

/** The verification report as a person reads it: one line per check, the reason after it. */
export function formatReport(report: VerificationReport): string {
  const lines = [
    `${report.provider} on ${report.operation} (model ${report.model ?? '-'}, temperature ${report.temperature})`,
    `contract ${report.contractHash.slice(0, 16)}…  verification ${report.id}`,
  ];
  for (const fixture of report.fixtures) {
    lines.push('', `fixture ${fixture.index}: ${JSON.stringify(fixture.input).slice(0, 100)}`);
    for (const check of fixture.checks)
      lines.push(`  ${MARK[check.status] ?? check.status} ${check.name.padEnd(15)} ${check.reason}`);
  }
  lines.push('', report.summary, '');
  return lines.join('\n');
}
