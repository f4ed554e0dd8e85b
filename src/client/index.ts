/**
 * The browser and Node.js client for the onejob HTTP API. It uses only `fetch`,
 * `AbortController`, `setTimeout` and Web Crypto.
 *
 * The package declares `onejob/client` in its `exports` map, so TypeScript finds its
 * types only with `moduleResolution` set to `node16`, `nodenext` or `bundler`; with the
 * older `node` (`node10`) setting the import does not resolve.
 *
 * @example
 * ```ts
 * import { createClient, newIntentKey } from 'onejob/client';
 *
 * const onejob = createClient({ baseUrl: 'http://127.0.0.1:8080', token: process.env.ONEJOB_TOKEN });
 * const key = newIntentKey('checkout-'); // once per user intent, reused by every retry
 * const job = await onejob.jobs.create('charge', { amount: 1999 }, { idempotencyKey: key });
 * const settled = await onejob.jobs.wait(job.id);
 * ```
 *
 * @module onejob/client
 */

export { ATTEMPT_STATES, isAttemptState } from '../vocabulary/attemptStates.js';
export { isJobState, JOB_STATES, SETTLED_JOB_STATES } from '../vocabulary/jobStates.js';
export type {
  CallOptions,
  ClientOptions,
  CreateOptions,
  OnejobClient,
  Submitted,
  WaitOptions,
} from './createClient.js';
export { createClient } from './createClient.js';
export type { RetryMode, TokenSource } from './createTransport.js';
export { newIntentKey } from './newIntentKey.js';
export type { ClientErrorCode } from './OnejobClientError.js';
export { isOnejobClientError, OnejobClientError } from './OnejobClientError.js';
export type { RetryInfo, RetryOptions } from './retryPolicy.js';
export { backoffDelay, parseRetryAfter } from './retryPolicy.js';
// Every public shape of the API (types.ts names them, from the wire contract).
export type * from './types.js';
export { SETTLED_STATES } from './types.js';
