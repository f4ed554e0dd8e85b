// The contract between the attempt engine and the things it calls. The engine owns
// retries, timeouts and completion; a provider makes exactly one call per attempt and
// says honestly whether its outcome is definite or unknown.
import type { ProviderConfig } from '../config/types.js';
import type { Operation } from '../operations/operationRegistry.js';

export interface Usage {
  inputTokens?: number;
  outputTokens?: number;
  /** True when the counts are onejob's estimate (an aborted call reports no usage). */
  estimated?: boolean;
}

/**
 * Why a failure is final, so no retry follows: the code threw `DefiniteFailure` with
 * `retryable: false`, or an `http` provider answered a status in the operation's
 * `permanentStatuses`.
 */
export type FinalBy = 'retryable_false' | 'permanent_status' | 'budget_exhausted';

export interface AttemptError {
  /** Stable machine code, e.g. `timeout`, `http_500`, `connection_refused`, `output_contract_violation`. */
  code: string;
  message: string;
  /** Set on a definite failure that no retry can turn around (see FinalBy). */
  finalBy?: FinalBy;
  [detail: string]: unknown;
}

/**
 * What a provider call ends with: the engine completes, retries or leaves the attempt unknown by its `kind`.
 */
export type ProviderOutcome =
  /** The provider did the work; `result` is the candidate result for the job's compare-and-swap. */
  | { kind: 'success'; result: unknown; usage?: Usage; costMicros?: number }
  /** Proven not done (or done wrong in a way that is safe to retry): the engine may retry. */
  | { kind: 'failure'; error: AttemptError; rejectedOutput?: unknown; usage?: Usage; costMicros?: number }
  /** Maybe done, maybe not (timeout, reset after send, 5xx): for exclusive operations nothing new may start. */
  | { kind: 'unknown'; error: AttemptError; usage?: Usage; costMicros?: number };

/** What a provider is called with for one attempt. */
export interface ProviderCall {
  jobId: string;
  attemptId: string;
  /** Attempt number n, 1-based. */
  attempt: number;
  operation: Operation;
  input: Record<string, unknown>;
  /** The same for every attempt of one job, so a provider that dedupes sees one intent. */
  idempotencyKey: string;
  traceparent?: string | null | undefined;
  /** Fires on the attempt timeout, when a hedge wins, or when the job is cancelled or abandoned. */
  signal: AbortSignal;
  /** Sampling temperature for inference; default: the operation contract's temperature. */
  temperature?: number | undefined;
  /**
   * Set for calls whose text may be relayed as it is produced (compat jobs): the adapter
   * streams the upstream answer and hands each text delta here, in order, awaiting each.
   * False means this attempt may not produce the job's text (a sibling claimed it): the
   * call's signal is aborted and the adapter stops.
   */
  onText?: ((delta: string) => Promise<boolean>) | undefined;
}

/** What a provider reports when asked about an earlier request (reconciliation). */
export type ProviderStatus = ProviderOutcome | { kind: 'not_found' };

/** A provider adapter: the engine calls `call` once per attempt. */
export interface Provider {
  readonly name: string;
  readonly kind: ProviderConfig['kind'] | string;
  /** Re-sending the same request with the same Idempotency-Key is safe (the provider dedupes). */
  readonly idempotent: boolean;
  call(call: ProviderCall): Promise<ProviderOutcome>;
  /** Asks the provider what happened to the request with this key, when it can say. */
  status?(call: Omit<ProviderCall, 'signal'> & { signal?: AbortSignal }): Promise<ProviderStatus>;
}
