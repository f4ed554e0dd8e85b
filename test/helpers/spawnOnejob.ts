// Runs `onejob` from source in a child process, for tests that kill it (failpoints with
// `kill`) or need several processes against one database; `spawnWatched` runs any other
// command (`npm start`) the same way.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { OnejobConfig } from '../../src/config/types.js';
import { untilSignalled } from './until.js';

const ROOT = join(import.meta.dirname, '..', '..');
const MAIN = join(ROOT, 'src', 'cli', 'main.ts');
// Resolved here so the child finds tsx whatever its working directory is.
const TSX = import.meta.resolve('tsx');

export interface SpawnedOnejob {
  child: ChildProcess;
  /** Everything the process wrote, for assertions and for diagnosing failures. */
  output(): string;
  /** Resolves with the first line of output that matches, or rejects if the process exits first. */
  waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** Resolves with the exit code (or signal name) once the process has exited. */
  exited: Promise<number | string>;
  kill(signal?: NodeJS.Signals): Promise<number | string>;
}

export function spawnOnejob(
  args: string[],
  env: Record<string, string | undefined> = {},
  cwd = ROOT,
  /** `detached`: a process group of its own, as a terminal gives a foreground command. */
  options: { detached?: boolean } = {},
): SpawnedOnejob {
  return spawnWatched(process.execPath, ['--import', TSX, MAIN, ...args], env, cwd, {
    ...options,
    name: 'onejob',
  });
}

/** Writes `config` to a temporary file, for a spawned `onejob serve --config`. */
export async function writeConfigFile(config: OnejobConfig): Promise<string> {
  const file = join(await mkdtemp(join(tmpdir(), 'onejob-config-')), 'config.json');
  await writeFile(file, JSON.stringify(config));
  return file;
}

/** `onejob serve` in one role (`worker`, `relay`, …) with the configuration file `configFile`. */
export function serveRole(
  role: string,
  configFile: string,
  env: Record<string, string | undefined> = {},
): SpawnedOnejob {
  return spawnOnejob(['serve', '--role', role, '--config', configFile], env);
}

/**
 * Runs `command` with this process's environment and `LOG_LEVEL=info` under `env` (an
 * undefined value removes the variable), keeping its stdout and stderr for the test to watch.
 */
export function spawnWatched(
  command: string,
  args: string[],
  env: Record<string, string | undefined>,
  cwd: string,
  /** `name`: what errors call the process (default: `command`). */
  options: { detached?: boolean; name?: string } = {},
): SpawnedOnejob {
  const name = options.name ?? command;
  const merged: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...process.env, LOG_LEVEL: 'info', ...env }))
    if (v !== undefined) merged[k] = v;
  const child = spawn(command, args, {
    cwd,
    env: merged,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: options.detached ?? false,
  });
  let out = '';
  const listeners = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    out += chunk.toString('utf8');
    for (const l of listeners) l();
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  const exited = new Promise<number | string>((resolve) => {
    child.on('exit', (code, signal) => {
      resolve(code ?? signal ?? 'unknown');
      for (const l of listeners) l();
    });
  });
  let done = false;
  void exited.then(() => {
    done = true;
  });
  return {
    child,
    output: () => out,
    exited,
    waitForOutput(pattern, timeoutMs = 90_000) {
      return untilSignalled(
        listeners,
        () => {
          const line = out.split('\n').find((l) => pattern.test(l));
          if (line === undefined && done)
            throw new Error(`${name} exited before printing ${pattern}:\n${out}`);
          return line;
        },
        timeoutMs,
        () => `timed out waiting for ${pattern}:\n${out}`,
      );
    },
    async kill(signal = 'SIGTERM') {
      if (!done) child.kill(signal);
      return exited;
    },
  };
}

/**
 * The environment of a plain `onejob serve` in a project folder: no database URL, keys,
 * config or admin token, so it starts the folder's embedded PostgreSQL; any free port.
 */
export const EMBEDDED_SERVE_ENV = {
  DATABASE_URL: undefined,
  ONEJOB_API_KEYS: undefined,
  ONEJOB_CONFIG: undefined,
  ONEJOB_ADMIN_TOKEN: undefined,
  PORT: '0',
};

/** The API's base URL from the banner line `API  http://…/v1/jobs`, once the server prints it. */
export const API_BANNER = /API\s+(http:\/\/\S+)\/v1\/jobs/;

export async function apiBase(server: SpawnedOnejob, timeoutMs = 120_000): Promise<string> {
  return API_BANNER.exec(await server.waitForOutput(API_BANNER, timeoutMs))![1]!;
}

/** The PID of the embedded PostgreSQL serving the project folder `cwd`. */
export async function embeddedPostmasterPid(cwd: string): Promise<number> {
  return Number((await readFile(join(cwd, '.onejob', 'pg', 'postmaster.pid'), 'utf8')).split('\n')[0]);
}
