// (h) The other group-committed paths, in-process: ledger transfers and webhook
// deliveries, each run with group commit and with `intake.maxBatchSize: 1` (every request
// its own transaction) on the same database and pool size, so the ratio is the batching.

import { Webhook } from 'standardwebhooks';
import type { OnejobConfig } from '../../src/config/types.js';
import type { Onejob } from '../../src/createOnejob.js';
import { benchConfig } from '../benchConfig.js';
import { type LoadResult, loadWindow, measureLoad } from '../measureLoad.js';
import { type PoolRun, withRunLibrary } from '../runPool.js';
import { BENCH_OWNER } from '../serverProcess.js';

export interface BatchedPathRun extends PoolRun {
  workerConcurrency: number;
  /** False: every request its own transaction (`intake.maxBatchSize: 1`). */
  batched: boolean;
}

const SECRET_ENV = 'ONEJOB_BENCH_INBOX_SECRET';
// A fixed, non-secret signing key: the bench signs its own deliveries.
const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;

function config(r: BatchedPathRun): OnejobConfig {
  return {
    ...benchConfig({ workerConcurrency: r.workerConcurrency }),
    ...(r.batched ? {} : { intake: { maxBatchSize: 1 } }),
    inbox: {
      sources: {
        bench: {
          scheme: 'standard-webhooks',
          secretEnv: SECRET_ENV,
          eventId: 'header:webhook-id',
          operation: 'noop',
          ownerId: BENCH_OWNER,
        },
      },
    },
  };
}

function withOnejob<T>(r: BatchedPathRun, fn: (onejob: Onejob) => Promise<T>): Promise<T> {
  return withRunLibrary(
    r,
    'onejob-bench-h',
    { config: config(r), env: { ...process.env, [SECRET_ENV]: SECRET } },
    fn,
  );
}

/**
 * `ledger.createTransfer` with a new id each call. `mesh`: among 16 accounts in both
 * directions, so every batch shares accounts with every other and single transfers, which
 * lock two accounts each, run several at a time. `hot`: from 1,000 customer accounts into
 * one revenue account, which every transfer locks until it commits, as payments into a
 * merchant's account do.
 */
export function transfersLoad(
  r: BatchedPathRun,
  idPrefix: string,
  shape: 'mesh' | 'hot' = 'mesh',
): Promise<LoadResult> {
  const accounts = Array.from({ length: 16 }, (_, i) => `bench:${i}`);
  const pair = (seq: number) =>
    shape === 'hot'
      ? { debitAccount: `bench:customer:${seq % 1000}`, creditAccount: 'bench:revenue' }
      : {
          debitAccount: accounts[seq % 16]!,
          // An offset of 1 to 15: never the debit account, and every pair in both directions.
          creditAccount: accounts[(seq + 1 + (Math.floor(seq / 16) % 15)) % 16]!,
        };
  return withOnejob(r, (onejob) =>
    measureLoad({
      label: `transfers${r.batched ? '' : ' alone'}`,
      ...loadWindow(r),
      op: async (seq) => {
        const { replayed } = await onejob.ledger.createTransfer({
          ownerId: BENCH_OWNER,
          id: `${idPrefix}${seq}`,
          ...pair(seq),
          amount: 1 + (seq % 100),
          currency: 'USD',
        });
        if (replayed) throw new Error('a new transfer id replayed');
      },
    }),
  );
}

/** `inbox.receive` of a signed Standard Webhooks delivery with a new event id each call. */
export function inboxLoad(r: BatchedPathRun, idPrefix: string): Promise<LoadResult> {
  const webhook = new Webhook(SECRET);
  return withOnejob(r, (onejob) =>
    measureLoad({
      label: `inbox${r.batched ? '' : ' alone'}`,
      ...loadWindow(r),
      op: async (seq) => {
        const id = `${idPrefix}${seq}`;
        const body = JSON.stringify({ amount: 1 + (seq % 100), note: 'bench' });
        const at = new Date();
        const answer = await onejob.inbox.receive('bench', {
          headers: {
            'webhook-id': id,
            'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
            'webhook-signature': webhook.sign(id, at, body),
          },
          rawBody: Buffer.from(body),
        });
        if (answer.replayed) throw new Error('a new event id was answered as a redelivery');
      },
    }),
  );
}
