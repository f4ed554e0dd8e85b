// How long one call may wait for its job: the client's own deadline when it says it
// (`x-stainless-timeout`, whole seconds), else `compat.waitMs`; never past `compat.maxWaitMs`.
// The answer leaves a little before the deadline: a 503 with Retry-After that the client
// reads is a retry it makes at once; a response it gave up on is only a timeout.
export function callDeadlineMs(
  header: string | string[] | undefined,
  settings: { waitMs: number; maxWaitMs: number },
): number {
  const seconds = typeof header === 'string' && /^\d+(\.\d+)?$/.test(header) ? Number(header) : undefined;
  if (seconds === undefined) return settings.waitMs;
  const ms = seconds * 1000;
  const margin = Math.min(1000, Math.max(100, ms * 0.1));
  return Math.min(settings.maxWaitMs, Math.max(0, ms - margin));
}
