// The public JSON shapes of the HTTP API, for clients: the wire contract's types
// (src/contract), which the server's routes answer with. The contract imports nothing but
// the state vocabulary, so the client bundle pulls in no server code.

import type { JobState } from '../contract/index.js';
import { SETTLED_JOB_STATES } from '../vocabulary/jobStates.js';

export type {
  AbandonAttemptBody,
  AccountBalance,
  AccountPage,
  Attempt,
  AttemptState,
  Backlog,
  Balance,
  Budget,
  BudgetList,
  CheckResult,
  CreateJobBody,
  DeadLetter,
  DeadLetterPage,
  Entry,
  EntryPage,
  FixtureReport,
  InboxAnswer,
  InboxEvent,
  InboxEventList,
  Job,
  JobDelivery,
  JobEvent,
  JobPage,
  JobState,
  ListJobsQuery,
  PendingTransfer,
  Problem,
  ProviderList,
  ProviderOperationStatus,
  ProviderStatus,
  PublisherBacklog,
  Replayed,
  SetBudgetBody,
  StartAttemptBody,
  Transfer,
  VerificationReport,
  VerificationStatus,
  VerifyProviderBody,
} from '../contract/index.js';

/**
 * States in which a job waits for nothing automatic: final, or unknown (needs a person or a reconciler).
 *
 * @example
 * ```ts
 * const job = await client.jobs.wait(id, { until: (j) => SETTLED_STATES.includes(j.state) });
 * ```
 */
export const SETTLED_STATES: readonly JobState[] = SETTLED_JOB_STATES;
