// The post-commit seam of the writes that are not settlements: job intake, publishing an
// event, accepting an inbox delivery (settlements have theirs, src/jobs/afterCommit.ts).
// Each write returns what it committed; `after*` turns that into an `AfterWrite` value, and
// `applyAfterWrite` is the only place that acts on it. A write that committed outbox rows
// and forgot to wake the relays leaves them to their next poll (`outbox.pollMs`): routing
// every such write through one function is what keeps that from happening.

/** A write's options: `tx` set means it joined the caller's transaction (not yet committed). */
type WriteOptions = { readonly tx?: unknown } | undefined;

/** What a committed write asks for after its commit. */
export interface AfterWrite {
  /** The write committed outbox rows: the relays look now instead of at their next poll. */
  outbox: boolean;
  /** The write committed new jobs: an idle worker claims now instead of at its next poll. */
  queued: boolean;
}

/**
 * A job create: a new job and its `onejob.job.created` event. In the caller's transaction
 * (`tx`) nothing is committed yet and its commit is not seen here: the worker's and the
 * relay's polls find them, or the caller announces them (`onejob.wakeups.jobsQueued()`).
 */
export function afterCreate(result: { replayed: boolean }, options?: WriteOptions): AfterWrite {
  const created = !result.replayed && !options?.tx;
  return { outbox: created, queued: created };
}

/** An event published through the outbox; as for `afterCreate` in the caller's transaction. */
export function afterPublish(result: { inserted: boolean }, options?: WriteOptions): AfterWrite {
  return { outbox: result.inserted && !options?.tx, queued: false };
}

/** An inbox delivery: the first one of an event committed its job and the job's created event. */
export function afterDelivery(answer: { replayed: boolean }): AfterWrite {
  return { outbox: !answer.replayed, queued: !answer.replayed };
}

/** Applies a committed write's effects. Never throws, never waits. */
export function applyAfterWrite(
  deps: { readonly wakeups: { outbox(): void; jobsQueued(): void } },
  effects: AfterWrite,
): void {
  // One notification announces the jobs to the workers and their events to the relays.
  if (effects.queued) deps.wakeups.jobsQueued();
  else if (effects.outbox) deps.wakeups.outbox();
}
