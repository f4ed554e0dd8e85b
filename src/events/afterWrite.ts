// The post-commit seam of the writes that are not settlements: job intake, publishing an
// event, accepting an inbox delivery (settlements have theirs, src/attempts/afterCommit.ts).
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
}

/**
 * A job create: a new job committed its `onejob.job.created` event. In the caller's
 * transaction (`tx`) nothing is committed yet and its commit is not seen here: the relay's
 * poll publishes it, or the caller wakes the relays (`onejob.wakeups.outbox()`).
 */
export function afterCreate(result: { replayed: boolean }, options?: WriteOptions): AfterWrite {
  return { outbox: !result.replayed && !options?.tx };
}

/** An event published through the outbox; as for `afterCreate` in the caller's transaction. */
export function afterPublish(result: { inserted: boolean }, options?: WriteOptions): AfterWrite {
  return { outbox: result.inserted && !options?.tx };
}

/** An inbox delivery: the first one of an event committed its job and the job's created event. */
export function afterDelivery(answer: { replayed: boolean }): AfterWrite {
  return { outbox: !answer.replayed };
}

/** Applies a committed write's effects. Never throws, never waits. */
export function applyAfterWrite(deps: { readonly wakeups: { outbox(): void } }, effects: AfterWrite): void {
  if (effects.outbox) deps.wakeups.outbox();
}
