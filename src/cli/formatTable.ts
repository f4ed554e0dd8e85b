// Plain text tables for the human-readable CLI output (--json gives the raw documents).
import { escapeControls, terminalJson } from './terminalText.js';

export function formatTable(headers: string[], rows: (string | number | null | undefined)[][]): string {
  const cells = rows.map((r) =>
    r.map((c) => (c === null || c === undefined || c === '' ? '-' : escapeControls(String(c)))),
  );
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((r) => r[i]?.length ?? 0)));
  const line = (r: string[]) =>
    r
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(headers), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)].join('\n');
}

/** An ISO timestamp as `HH:MM:SS.mmm` (today) or `YYYY-MM-DD HH:MM:SS` (older), in UTC. */
export function shortTime(iso: string | null | undefined): string {
  if (!iso) return '-';
  const d = new Date(iso);
  const today = new Date().toISOString().slice(0, 10);
  const s = d.toISOString();
  return s.slice(0, 10) === today ? s.slice(11, 23) : `${s.slice(0, 10)} ${s.slice(11, 19)}`;
}

export function printJson(value: unknown): void {
  process.stdout.write(`${terminalJson(value)}\n`);
}
