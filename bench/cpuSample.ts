// CPU by process, once a second, while something else runs: which of the onejob server,
// PostgreSQL's backends (by database), the load generator and the harness use the cores.
// Run it beside a bench run on the same machine:
//   node --import tsx bench/cpuSample.ts --seconds 70 &  npm run bench -- --only a16
// Each line: seconds since start, then each group's share of one core (100 % = one core).
import { readdirSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

function group(cmdline: string, comm: string): string {
  if (comm === 'postgres' || cmdline.startsWith('postgres')) {
    // "postgres: 15/main: postgres onejob_bench_..._intake 127.0.0.1(5432) idle"
    const role = cmdline.split(':').slice(2).join(':').trim().split(/\s+/);
    return role.length > 1 && role[0] === 'postgres'
      ? `postgres ${role[1]}`
      : `postgres ${role[0] ?? ''}`.trim();
  }
  if (cmdline.includes(' serve ')) return 'onejob server';
  if (cmdline.includes('httpLoadWorker') || comm === 'pgbench') return 'load generator';
  if (cmdline.includes('bench/run')) return 'bench harness';
  return 'other';
}

function snapshot(): Map<string, number> {
  const ticks = new Map<string, number>();
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const used = Number(fields[11]) + Number(fields[12]); // utime + stime
      const key = group(cmdline, comm);
      ticks.set(key, (ticks.get(key) ?? 0) + used);
    } catch {
      // The process ended between listing and reading.
    }
  }
  return ticks;
}

const seconds = Number(process.argv[process.argv.indexOf('--seconds') + 1]) || 60;
let before = snapshot();
for (let s = 1; s <= seconds; s++) {
  await sleep(1_000);
  const now = snapshot();
  const shares = [...now]
    .map(([key, t]) => [key, ((t - (before.get(key) ?? 0)) / TICKS_PER_SECOND) * 100] as const)
    .filter(([, pct]) => pct >= 1)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, pct]) => `${key}=${pct.toFixed(0)}%`);
  console.log(s, shares.join(' '));
  before = now;
}
