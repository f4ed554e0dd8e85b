/** Polls a database fact the test waits for (never a fixed sleep), up to `timeoutMs`. */
export async function until<T>(
  what: string,
  fn: () => Promise<T | undefined | false>,
  timeoutMs = 45_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
