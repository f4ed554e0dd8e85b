// A stalled PostgreSQL: the postmaster and every backend it forked are stopped with
// SIGSTOP, then continued with SIGCONT. Stopping only the postmaster would stall new
// connections while every open session went on answering; stopping the backends too
// freezes the server as a whole (open connections hang instead of being refused or
// reset, unlike a restart). The postmaster's pid is the first line of postmaster.pid.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { childPids } from '../../test/helpers/childPids.js';

export function postmasterPid(dataDir: string): number {
  const pid = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0) throw new Error(`no postmaster pid in ${dataDir}/postmaster.pid`);
  return pid;
}

const signal = (pid: number, s: NodeJS.Signals) => {
  try {
    process.kill(pid, s);
    return true;
  } catch {
    return false;
  }
};

/** Stops the server for `ms` and continues it; returns how many processes were stopped. */
export async function stallPostgres(dataDir: string, ms: number): Promise<number> {
  const master = postmasterPid(dataDir);
  // The postmaster first, so that it forks no backend that would escape the stall.
  signal(master, 'SIGSTOP');
  const stopped = [master];
  try {
    for (const child of childPids(master)) if (signal(child, 'SIGSTOP')) stopped.push(child);
    await new Promise((r) => setTimeout(r, ms));
  } finally {
    for (const pid of stopped.reverse()) signal(pid, 'SIGCONT');
  }
  return stopped.length;
}
