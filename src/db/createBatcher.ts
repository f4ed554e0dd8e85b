// The one batcher of the hot writes (job intake, ledger transfers, inbox deliveries). A
// write has a single SQL path, its batch: a request alone is a batch of one. This puts a
// group commit (groupCommit.ts) in front of it and answers each request as it would have
// been answered alone, whatever else shared its statement.
import { createGroupCommit, type GroupCommitOptions, groupByKey, type Pending } from './groupCommit.js';

export interface BatcherOptions extends GroupCommitOptions {
  /** Called once per batch statement, with its size and whether it fell back to one request at a time. */
  onBatch?: (batch: { size: number; fellBack: boolean; error?: unknown }) => void;
}

/**
 * A write with one batch path. `O` is what the batch says about one key, `R` the answer a
 * request gets.
 */
export interface BatchedWrite<I, O, R> {
  /** Requests with the same key are one row to the database (a double click, a redelivery). */
  key(item: I): string;
  /**
   * Writes requests with distinct keys in one statement or transaction: for each, its
   * outcome, or undefined when the batch cannot settle it (it then goes alone). Throwing
   * sends every request alone, so no request is failed by another one's row.
   */
  write(items: I[]): Promise<(O | undefined)[]>;
  /** The answer `item` gets from its key's outcome; `first` when it is the request written. Throw to refuse it. */
  answer(outcome: O, item: I, first: boolean): R;
  /** One request alone: the same write as a batch of one, settled whatever happens. */
  alone(item: I): Promise<R>;
  /**
   * When true, later requests of a key do not take the first one's answer: each goes
   * alone after the batch, in arrival order (each must reach the database, to be counted).
   */
  repeatsAlone?: boolean;
}

export interface Batcher<I, R> {
  /** Queues the request; resolves with its own answer. */
  submit(item: I): Promise<R>;
}

type Waiter<I, R> = Pending<I, R>;

/**
 * Concurrent requests share one write and one commit; each gets the answer it would have
 * had alone. With `maxBatchSize` 1 there is no queue: every request is its own batch of one.
 */
export function createBatcher<I, O, R>(
  write: BatchedWrite<I, O, R>,
  options: BatcherOptions = {},
): Batcher<I, R> {
  if ((options.maxBatchSize ?? 64) <= 1) return { submit: (item) => write.alone(item) };

  // One key's requests in arrival order, each its own batch of one, as if they came one by one.
  const settleAlone = async (group: Waiter<I, R>[]): Promise<void> => {
    for (const w of group) {
      try {
        w.resolve(await write.alone(w.item));
      } catch (error) {
        w.reject(error);
      }
    }
  };

  const runBatch = async (waiters: Waiter<I, R>[]): Promise<void> => {
    const groups = groupByKey(waiters, (w) => write.key(w.item));
    let outcomes: (O | undefined)[];
    try {
      outcomes = await write.write(groups.map((g) => g[0]!.item));
    } catch (error) {
      options.onBatch?.({ size: waiters.length, fellBack: true, error });
      await Promise.all(groups.map(settleAlone));
      return;
    }
    options.onBatch?.({ size: waiters.length, fellBack: false });
    const alone: Waiter<I, R>[][] = [];
    groups.forEach((group, i) => {
      const outcome = outcomes[i];
      if (outcome === undefined) {
        alone.push(group);
        return;
      }
      const answered = write.repeatsAlone ? group.slice(0, 1) : group;
      answered.forEach((w, j) => {
        try {
          w.resolve(write.answer(outcome, w.item, j === 0));
        } catch (error) {
          w.reject(error);
        }
      });
      if (write.repeatsAlone && group.length > 1) alone.push(group.slice(1));
    });
    await Promise.all(alone.map(settleAlone));
  };

  return createGroupCommit<I, R>(runBatch, options);
}
