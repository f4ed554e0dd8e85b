// The one polling helper of tests, chaos and bench: it waits for a fact (never a fixed
// sleep), re-reading it every `everyMs`, up to `timeoutMs`. Where the fact's source says
// when it changed (a listener called on output or on a request), `untilSignalled` re-reads
// it then instead.

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export interface UntilOptions {
  /** Pause between reads. */
  everyMs?: number;
  /** An error from `fn` is another "not yet" (a server still starting), reported if time runs out. */
  retryErrors?: boolean;
}

/** Polls `fn` until it returns a truthy value or `timeoutMs` passes (then throws, naming `what`). */
export async function until<T>(
  what: string,
  fn: () => Promise<T | undefined | false>,
  timeoutMs = 45_000,
  { everyMs = 25, retryErrors = false }: UntilOptions = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await fn();
      if (value) return value;
    } catch (error) {
      if (!retryErrors) throw error;
      last = error;
    }
    if (Date.now() > deadline)
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`,
      );
    await sleep(everyMs);
  }
}

/**
 * Resolves with what `check` finds (anything but undefined), reading it now and each time one
 * of `listeners` is called; rejects when `check` throws, or after `timeoutMs` with `timedOut()`.
 */
export function untilSignalled<T>(
  listeners: Set<() => void>,
  check: () => T | undefined,
  timeoutMs: number,
  timedOut: () => string,
): Promise<T> {
  return new Promise((resolve, reject) => {
    const read = () => {
      let found: T | undefined;
      try {
        found = check();
      } catch (error) {
        cleanup();
        reject(error);
        return;
      }
      if (found !== undefined) {
        cleanup();
        resolve(found);
      }
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(timedOut()));
    }, timeoutMs);
    const cleanup = () => {
      clearTimeout(timer);
      listeners.delete(read);
    };
    listeners.add(read);
    read();
  });
}
