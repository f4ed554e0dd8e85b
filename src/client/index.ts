// onejob/client: the browser and Node client for the onejob HTTP API.
export { createClient } from './createClient.js';
export type {
  CallOptions,
  ClientOptions,
  CreateOptions,
  OnejobClient,
  Submitted,
  WaitOptions,
} from './createClient.js';
export type { RetryMode, TokenSource } from './createTransport.js';
export { newIntentKey } from './newIntentKey.js';
export { OnejobClientError, isOnejobClientError } from './OnejobClientError.js';
export type { ClientErrorCode } from './OnejobClientError.js';
export { backoffDelay, parseRetryAfter } from './retryPolicy.js';
export type { RetryInfo, RetryOptions } from './retryPolicy.js';
export { SETTLED_STATES } from './types.js';
export { ATTEMPT_STATES, isAttemptState } from '../vocabulary/attemptStates.js';
export { JOB_STATES, isJobState, SETTLED_JOB_STATES } from '../vocabulary/jobStates.js';
export type { Attempt, AttemptState, Job, JobPage, JobState, ListJobsQuery, Problem } from './types.js';
