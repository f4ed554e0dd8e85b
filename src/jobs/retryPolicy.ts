/**
 * Delay before retry number `failures` (1 for the first retry): exponential backoff,
 * capped, with "equal jitter" (half fixed, half random) so many jobs failing together
 * do not return together, yet no retry comes back immediately.
 */
export function backoffMs(
  failures: number,
  retry: { baseDelayMs: number; maxDelayMs: number },
  random = Math.random,
): number {
  const exponent = Math.min(Math.max(failures, 1) - 1, 30);
  const ceiling = Math.min(retry.maxDelayMs, retry.baseDelayMs * 2 ** exponent);
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}
