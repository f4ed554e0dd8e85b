// Group commit: requests that arrive together share one statement and one commit.
// PostgreSQL pays a WAL flush and a round trip per commit, so a hot path that writes one row
// per request is bounded by commits, not by rows. This queue gathers concurrent requests and
// hands them to a batch function as one array; the batch function answers each one.

export interface GroupCommitOptions {
  /** Most requests in one batch; a full batch goes at once. Default 64. */
  maxBatchSize?: number;
  /** Longest a request waits for others while a batch is already in flight. Default 1 ms. */
  maxWaitMs?: number;
  /** Batches in flight at once; further requests gather until one returns. Default 4. */
  maxInFlight?: number;
  /**
   * Called as each batch settles: its size, how long its oldest request waited in the queue
   * before the batch began, and how long the batch took (statement, commit and any
   * one-at-a-time fallback). The two times split a caller's latency into gathering and
   * database work.
   */
  observe?: (batch: { size: number; waitedMs: number; tookMs: number }) => void;
}

/** One request waiting in a batch. Settle it exactly once; later calls are ignored. */
export interface Pending<I, R> {
  readonly item: I;
  resolve(result: R): void;
  reject(error: unknown): void;
}

type Queued<I, R> = Pending<I, R> & { readonly queuedAt: number };

export interface GroupCommit<I, R> {
  /** Queues the item; resolves with what the batch function answered for it. */
  submit(item: I): Promise<R>;
}

/**
 * A queue in front of `runBatch`. A request that finds no batch in flight goes at once
 * (alone, or with whatever arrived in the same tick), so a quiet service adds no delay.
 * While batches are in flight, requests gather until `maxBatchSize` wait, `maxWaitMs`
 * passes, or a batch returns. `runBatch` must settle every request it is given; one it
 * leaves unsettled, or a throw, rejects the rest, so no caller waits forever.
 */
export function createGroupCommit<I, R>(
  runBatch: (batch: Pending<I, R>[]) => Promise<void>,
  options: GroupCommitOptions = {},
): GroupCommit<I, R> {
  const maxBatchSize = Math.max(1, options.maxBatchSize ?? 64);
  const maxWaitMs = options.maxWaitMs ?? 1;
  const maxInFlight = Math.max(1, options.maxInFlight ?? 4);
  let queue: Queued<I, R>[] = [];
  let inFlight = 0;
  let timer: NodeJS.Timeout | undefined;
  let scheduled = false;

  const run = async (batch: Queued<I, R>[]): Promise<void> => {
    const began = performance.now();
    try {
      await runBatch(batch);
    } catch (error) {
      for (const p of batch) p.reject(error);
      return;
    } finally {
      options.observe?.({
        size: batch.length,
        waitedMs: began - batch[0]!.queuedAt,
        tookMs: performance.now() - began,
      });
    }
    const unanswered = new Error('a group-commit batch returned without answering this request');
    for (const p of batch) p.reject(unanswered);
  };

  const flush = (): void => {
    if (timer) {
      clearTimeout(timer);
      timer = undefined;
    }
    while (queue.length > 0 && inFlight < maxInFlight) {
      const batch = queue.length <= maxBatchSize ? queue : queue.slice(0, maxBatchSize);
      queue = queue.length <= maxBatchSize ? [] : queue.slice(maxBatchSize);
      inFlight++;
      void run(batch).finally(() => {
        inFlight--;
        // What gathered while this batch was in flight goes now.
        if (queue.length > 0) flush();
      });
    }
  };

  return {
    submit(item) {
      return new Promise<R>((resolve, reject) => {
        let settled = false;
        queue.push({
          item,
          queuedAt: performance.now(),
          resolve(result) {
            if (settled) return;
            settled = true;
            resolve(result);
          },
          reject(error) {
            if (settled) return;
            settled = true;
            reject(error);
          },
        });
        if (inFlight === 0) {
          if (!scheduled) {
            scheduled = true;
            queueMicrotask(() => {
              scheduled = false;
              flush();
            });
          }
        } else if (queue.length >= maxBatchSize) flush();
        else timer ??= setTimeout(flush, maxWaitMs);
      });
    },
  };
}

/**
 * Requests grouped by `key`, groups in order of their first request. The same key twice
 * in a batch (a double click, a redelivery) is one row to the database: the batchers send
 * each group's first request and answer the rest from its outcome.
 */
export function groupByKey<T>(items: readonly T[], key: (item: T) => string): T[][] {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const group = groups.get(k);
    if (group) group.push(item);
    else groups.set(k, [item]);
  }
  return [...groups.values()];
}
