// The one polling helper of tests, chaos and bench: it waits for a fact (never a fixed
// sleep), re-reading it every `everyMs`, up to `timeoutMs`.

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
