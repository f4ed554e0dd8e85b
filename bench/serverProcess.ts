// The onejob server under test, run from source as a child process (`onejob serve`) so
// its CPU and memory are its own: RSS is read from /proc/<pid>/status of that process.
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { OnejobConfig } from '../src/config/types.js';
import { freePort } from '../test/helpers/ports.js';

export const ROOT = join(import.meta.dirname, '..');
const MAIN = join(ROOT, 'src', 'cli', 'main.ts');
const COMPILED = join(ROOT, 'dist', 'cli', 'main.js');
export const BENCH_TOKEN = 'bench-token';
export const BENCH_OWNER = 'bench';

export interface ServerProcess {
  url: string;
  pid: number;
  /** RSS right after start, before any load (MB). */
  idleRssMb: number;
  /** Resident set size of the server process now, in MB. */
  rssMb(): number;
  /** Starts sampling RSS every 250 ms; the returned function stops and gives the peak. */
  sampleRss(): () => number;
  stop(): Promise<void>;
}

export function readRssMb(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = /VmRSS:\s+(\d+)\s+kB/.exec(status)?.[1];
    return kb ? Math.round((Number(kb) / 1024) * 10) / 10 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

export interface StartServerOptions {
  databaseUrl: string;
  config: OnejobConfig;
  roles: string;
  logFile: string;
  logLevel: string;
  workDir: string;
  /** tsx runs the source as it is (its loader adds about 40 MB of RSS); dist runs the compiled output. */
  server?: 'tsx' | 'dist';
  /** ONEJOB_API_KEYS of the server; default one token for the bench owner. */
  apiKeys?: string;
}

/** A scenario that measures `onejob serve` itself: its database, work folder, log level, build and worker concurrency. */
export interface ServedRun {
  databaseUrl: string;
  workDir: string;
  logLevel: string;
  server: 'tsx' | 'dist';
  workerConcurrency: number;
}

/** `onejob serve --role <roles>` for a served scenario, logging to `server-<logName>.log` in its work folder. */
export function startServedServer(
  r: ServedRun,
  roles: string,
  logName: string,
  config: OnejobConfig,
): Promise<ServerProcess> {
  return startServer({
    databaseUrl: r.databaseUrl,
    config,
    roles,
    logFile: `${r.workDir}/server-${logName}.log`,
    logLevel: r.logLevel,
    server: r.server,
    workDir: r.workDir,
  });
}

export async function startServer(o: StartServerOptions): Promise<ServerProcess> {
  const port = await freePort();
  const configPath = join(o.workDir, `config-${o.roles.replace(/,/g, '-')}.json`);
  await writeFile(configPath, JSON.stringify(o.config, null, 2));
  // The log goes to a file, as in production: writing it is part of the server's cost,
  // and a pipe back to the harness would charge reading it to the harness.
  const log = openSync(o.logFile, 'a');
  // For profiling the server alone, e.g. BENCH_SERVER_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof".
  const nodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
  const entry = o.server === 'dist' ? [COMPILED] : ['--import', 'tsx', MAIN];
  const child: ChildProcess = spawn(
    process.execPath,
    [...nodeArgs, ...entry, 'serve', '--role', o.roles, '--config', configPath],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        DATABASE_URL: o.databaseUrl,
        ONEJOB_API_KEYS: o.apiKeys ?? `${BENCH_TOKEN}=${BENCH_OWNER}`,
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: o.logLevel,
        ONEJOB_FAILPOINTS: '',
      },
      stdio: ['ignore', log, log],
    },
  );
  closeSync(log);
  let exited = false;
  const exit = new Promise<void>((resolve) =>
    child.once('exit', () => {
      exited = true;
      resolve();
    }),
  );
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  const ready = o.roles.split(',').includes('api') ? `${url}/healthz` : undefined;
  for (;;) {
    if (exited)
      throw new Error(`onejob serve exited during start:\n${readFileSync(o.logFile, 'utf8').slice(-2000)}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`onejob serve did not start within 60 s; see ${o.logFile}`);
    }
    if (ready) {
      const ok = await fetch(ready).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) break;
    } else if (readFileSync(o.logFile, 'utf8').includes(`onejob is running (roles: ${o.roles})`)) {
      break;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const pid = child.pid!;
  return {
    url,
    pid,
    idleRssMb: readRssMb(pid),
    rssMb: () => readRssMb(pid),
    sampleRss() {
      let peak = readRssMb(pid);
      const timer = setInterval(() => {
        const now = readRssMb(pid);
        if (now > peak || Number.isNaN(peak)) peak = now;
      }, 250);
      return () => {
        clearInterval(timer);
        const now = readRssMb(pid);
        return Math.max(peak, Number.isNaN(now) ? 0 : now);
      };
    },
    async stop() {
      if (exited) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exit;
      clearTimeout(timer);
    },
  };
}
