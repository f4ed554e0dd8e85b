// One background loop, written once: run, wait `ms` after the run ends, run again, until
// stop(). A run is never started while one is in progress, so a slow database slows the
// loop instead of piling runs up; stop() waits for a run in progress, so none queries a
// pool its caller is about to close. Used by the worker's housekeeping, the cost poster
// and the watch over running code attempts.

export interface PeriodicTask {
  /** Schedules a run `ms` from now, unless one is scheduled or running, or the task stopped. */
  start(): void;
  /** No run starts any more; resolves once a run in progress has ended. */
  stop(): Promise<void>;
}

export interface PeriodicTaskOptions {
  /** The timer does not keep the process alive. */
  unref?: boolean;
  /** True when there is nothing to do: no run is scheduled until the next start(). */
  idle?: () => boolean;
}

/** `run` should handle its own errors; one that escapes is swallowed so the loop goes on. */
export function periodicTask(
  ms: number,
  run: () => Promise<void>,
  options: PeriodicTaskOptions = {},
): PeriodicTask {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = false;
  const schedule = () => {
    if (stopped || timer || running || options.idle?.()) return;
    timer = setTimeout(() => {
      timer = undefined;
      running = run()
        .catch(() => undefined)
        .finally(() => {
          running = undefined;
          schedule();
        });
    }, ms);
    if (options.unref) timer.unref();
  };
  return {
    start: schedule,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      timer = undefined;
      await running;
    },
  };
}
