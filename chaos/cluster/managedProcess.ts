// A child process the harness owns: started in its own process group, its output kept
// (bounded) for diagnosis, killed with its group, and registered so that every process
// is stopped at the end of the run, even when the run fails.
import { type ChildProcess, spawn } from 'node:child_process';

const live = new Set<ManagedProcess>();

export class ManagedProcess {
  child: ChildProcess | undefined;
  private out = '';
  private exitWaiters: (() => void)[] = [];
  exits = 0;

  constructor(
    readonly name: string,
    private readonly command: string,
    private readonly args: string[],
    private env: Record<string, string>,
    private readonly cwd: string,
  ) {}

  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Starts the process, optionally with extra environment (a failpoint) for this life only. */
  start(extraEnv: Record<string, string> = {}): void {
    if (this.running) throw new Error(`${this.name} is already running`);
    const child = spawn(this.command, this.args, {
      cwd: this.cwd,
      env: { ...this.env, ...extraEnv },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    this.child = child;
    live.add(this);
    const keep = (chunk: Buffer) => {
      this.out += chunk.toString('utf8');
      if (this.out.length > 200_000) this.out = this.out.slice(-100_000);
      for (const w of this.waiters.splice(0)) w();
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    child.on('exit', () => {
      this.exits++;
      if (this.child === child) live.delete(this);
      for (const w of this.exitWaiters.splice(0)) w();
      for (const w of this.waiters.splice(0)) w();
    });
  }

  private waiters: (() => void)[] = [];

  output(): string {
    return this.out;
  }

  /** Resolves once output since `from` matches, rejects if the process exits or time runs out. */
  waitForOutput(pattern: RegExp, timeoutMs: number, from = 0): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(new Error(`${this.name}: no ${pattern} within ${timeoutMs} ms:\n${this.out.slice(-3000)}`)),
        timeoutMs,
      );
      const check = () => {
        if (pattern.test(this.out.slice(from))) {
          clearTimeout(timer);
          resolve();
        } else if (!this.running) {
          clearTimeout(timer);
          reject(new Error(`${this.name} exited before printing ${pattern}:\n${this.out.slice(-3000)}`));
        } else this.waiters.push(check);
      };
      check();
    });
  }

  /** Resolves when the current life of the process ends (or at once if it is not running). */
  waitForExit(timeoutMs: number): Promise<boolean> {
    if (!this.running) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      this.exitWaiters.push(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }

  /** Sends `signal` to the whole process group and waits for the exit. */
  async kill(signal: NodeJS.Signals = 'SIGKILL', timeoutMs = 10_000): Promise<void> {
    const child = this.child;
    if (!child?.pid || !this.running) return;
    try {
      process.kill(-child.pid, signal);
    } catch {
      // Already gone.
    }
    if (!(await this.waitForExit(timeoutMs)) && signal !== 'SIGKILL') await this.kill('SIGKILL', timeoutMs);
  }
}

/** SIGKILLs every process the harness still has running: the last line of defence at exit. */
export function killAllManaged(): void {
  for (const p of live) {
    const pid = p.child?.pid;
    if (pid)
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
  }
  live.clear();
}

export function liveProcessCount(): number {
  return live.size;
}
