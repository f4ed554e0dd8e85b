// Runs `onejob` from source in a child process, for tests that kill it (failpoints with
// `kill`) or need several processes against one database.
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

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
  const merged: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...process.env, LOG_LEVEL: 'info', ...env }))
    if (v !== undefined) merged[k] = v;
  const child = spawn(process.execPath, ['--import', TSX, MAIN, ...args], {
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
      return new Promise((resolve, reject) => {
        const check = () => {
          const line = out.split('\n').find((l) => pattern.test(l));
          if (line !== undefined) {
            cleanup();
            resolve(line);
          } else if (done) {
            cleanup();
            reject(new Error(`onejob exited before printing ${pattern}:\n${out}`));
          }
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`timed out waiting for ${pattern}:\n${out}`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          listeners.delete(check);
        };
        listeners.add(check);
        check();
      });
    },
    async kill(signal = 'SIGTERM') {
      if (!done) child.kill(signal);
      return exited;
    },
  };
}
