// The processes a process forked, read from /proc (Linux): a PostgreSQL postmaster's
// backends, WAL sender, checkpointer... for the helpers that stop or kill a server whole.
import { readdirSync, readFileSync } from 'node:fs';

/** Every process whose parent is `pid`. */
export function childPids(pid: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // The fields after the command name (which may hold spaces) start after the last ')'.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[1]) === pid) out.push(Number(entry));
    } catch {
      // The process ended while being read.
    }
  }
  return out;
}
