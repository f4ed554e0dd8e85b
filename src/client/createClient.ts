// The onejob client: create one job per user intent and follow it, from a browser or Node.
import { createTransport, type RetryMode, type TokenSource, type Transport } from './createTransport.js';
import { type RetryOptions, resolveRetry, sleep } from './retryPolicy.js';
import {
  type AbandonAttemptBody,
  type Attempt,
  type Budget,
  type BudgetList,
  type CreateJobBody,
  type Job,
  type JobPage,
  type ListJobsQuery,
  type ProviderList,
  SETTLED_STATES,
  type SetBudgetBody,
  type StartAttemptBody,
  type VerificationReport,
  type VerifyProviderBody,
} from './types.js';

/** Options of `createClient`. */
export interface ClientOptions {
  /** Where onejob listens, e.g. `http://127.0.0.1:8080`; `''` for the page's own origin. */
  baseUrl: string;
  /** The bearer token, or a function that returns it (called before every request). */
  token?: TokenSource;
  /** A fetch implementation; default the global one. */
  fetch?: typeof fetch;
  /** Retry policy for network errors, 429 and 503 (and 502/504); `false` sends every request once. */
  retry?: RetryOptions | false;
  /** Per-try timeout: a request that gets no answer in this time is retried. Default 30 s. */
  timeoutMs?: number;
}

/** Options every client call takes. */
export interface CallOptions {
  signal?: AbortSignal;
}

/** Options of `jobs.create` and `jobs.submit`. */
export interface CreateOptions extends CallOptions {
  /** One key per user intent (see newIntentKey): the same key on every retry and on the fallback button. */
  idempotencyKey: string;
  /** W3C traceparent to tie the job to the caller's trace. */
  traceparent?: string;
  /**
   * Not started before this instant (a Date, or an RFC 3339 string with a time zone); a past
   * one runs now. Part of the request: retries send the same, and the same key with another
   * runAt is a 409.
   */
  runAt?: Date | string;
}

/**
 * What `jobs.submit` returns: the job, whether the key already named it, and how many requests it took.
 */
export interface Submitted<I, R> {
  job: Job<I, R>;
  /** The key already named this job: nothing new was created. */
  replayed: boolean;
  /** Requests sent, retries included. */
  tries: number;
}

/** Options of `jobs.wait`. */
export interface WaitOptions extends CallOptions {
  /** Give up after this long and return the job as it is. Default 5 minutes. */
  timeoutMs?: number;
  /** When to stop waiting. Default: the job is settled (succeeded, failed, cancelled or unknown). */
  until?: (job: Job) => boolean;
}

/** The client `createClient` returns: jobs, attempts and providers of the HTTP API. */
export interface OnejobClient {
  readonly jobs: {
    /** Creates the job for an intent, or returns the job the key already names. Retries with the same key. */
    create<I extends Record<string, unknown>, R = unknown>(
      operation: string,
      input: I,
      options: CreateOptions,
    ): Promise<Job<I, R>>;
    /** As create, and says whether the job was replayed and how many requests it took. */
    submit<I extends Record<string, unknown>, R = unknown>(
      operation: string,
      input: I,
      options: CreateOptions,
    ): Promise<Submitted<I, R>>;
    get(id: string, options?: CallOptions): Promise<Job>;
    list(query?: ListJobsQuery, options?: CallOptions): Promise<JobPage>;
    /** Every job matching the query, page by page, newest first. */
    iterate(query?: Omit<ListJobsQuery, 'cursor'>, options?: CallOptions): AsyncGenerator<Job>;
    /** Long-polls until the job settles (or `until` holds, or `timeoutMs` passes). */
    wait(id: string, options?: WaitOptions): Promise<Job>;
    /** Starts a new attempt now (the fallback button), optionally on another provider. */
    retry(id: string, options?: CallOptions & { provider?: string }): Promise<Attempt>;
    /** Gives up on attempt `n` (unknown or running): it can never complete the job. */
    abandon(id: string, n: number, reason: string, options?: CallOptions): Promise<Job>;
    cancel(id: string, options?: CallOptions): Promise<Job>;
  };
  readonly providers: {
    /** Each provider with its contract verification status per operation. */
    list(options?: CallOptions): Promise<ProviderList>;
    /** Verifies that a provider honours an operation's contract (needs the admin token). */
    verify(name: string, operation: string, options?: CallOptions): Promise<VerificationReport>;
  };
  readonly budgets: {
    /** The calling owner's budgets, one per currency; `items` is empty when it is not limited. */
    mine(options?: CallOptions): Promise<BudgetList>;
    /** An owner's budget in a currency (needs the admin token); `budget_not_found` when it has none. */
    get(ownerId: string, currency: string, options?: CallOptions): Promise<Budget>;
    /** Sets or changes an owner's budget in a currency, at once (needs the admin token). */
    set(ownerId: string, currency: string, budget: SetBudgetBody, options?: CallOptions): Promise<Budget>;
  };
  /** Any other route, with the same auth, errors and retry rules. */
  request<T = unknown>(
    method: string,
    path: string,
    options?: {
      query?: Record<string, string | number | undefined>;
      body?: unknown;
      retryMode?: RetryMode;
    } & CallOptions,
  ): Promise<T>;
}

const LONG_POLL_MAX_MS = 60_000;

/**
 * Creates a client for the onejob HTTP API at `baseUrl`. Requests are sent again after
 * 429, 502, 503 and 504, and job creation and reads after network errors too, with the
 * same idempotency key (see `RetryOptions` and docs/client.md).
 *
 * @example
 * ```ts
 * import { createClient } from 'onejob/client';
 *
 * const client = createClient({ baseUrl: 'http://127.0.0.1:8080', token: () => getToken() });
 * const page = await client.jobs.list({ state: 'unknown' });
 * ```
 */
export function createClient(options: ClientOptions): OnejobClient {
  const fetchImpl = options.fetch ?? globalThis.fetch?.bind(globalThis);
  if (!fetchImpl) throw new Error('createClient needs fetch (Node 20+ or a browser), or pass options.fetch');
  const timeoutMs = options.timeoutMs ?? 30_000;
  const request: Transport = createTransport({
    baseUrl: options.baseUrl,
    token: options.token,
    fetch: fetchImpl,
    retry: resolveRetry(options.retry),
    timeoutMs,
  });
  return {
    jobs: jobsApi(request, timeoutMs),
    providers: providersApi(request, timeoutMs),
    budgets: budgetsApi(request),
    async request(method, path, o = {}) {
      return (
        await request(method, path, {
          query: o.query,
          body: o.body,
          signal: o.signal,
          retryMode: o.retryMode ?? (method === 'GET' ? 'always' : 'unprocessed'),
        })
      ).body as never;
    },
  };
}

const enc = encodeURIComponent;

/** runAt as sent: a string as given (the server checks it), a Date as its ISO instant. */
function runAtOf(runAt: Date | string): string {
  if (typeof runAt === 'string') return runAt;
  if (!(runAt instanceof Date) || Number.isNaN(runAt.getTime())) {
    throw new TypeError('jobs.create: runAt must be a valid Date or an RFC 3339 string');
  }
  return runAt.toISOString();
}

/** `client.jobs`: intake, reads, long-polls and the fallback, abandon and cancel buttons. */
function jobsApi(request: Transport, timeoutMs: number): OnejobClient['jobs'] {
  async function submit<I extends Record<string, unknown>, R>(
    operation: string,
    input: I,
    o: CreateOptions,
  ): Promise<Submitted<I, R>> {
    if (typeof o?.idempotencyKey !== 'string' || o.idempotencyKey === '') {
      throw new TypeError(
        'jobs.create needs { idempotencyKey }: make one per user intent with newIntentKey()',
      );
    }
    const headers: Record<string, string> = { 'idempotency-key': o.idempotencyKey };
    if (o.traceparent) headers.traceparent = o.traceparent;
    const body: CreateJobBody = { operation, input };
    if (o.runAt !== undefined) body.runAt = runAtOf(o.runAt);
    const r = await request<Job<I, R>>('POST', '/v1/jobs', {
      body,
      headers,
      signal: o.signal,
      retryMode: 'always',
    });
    return { job: r.body, replayed: r.headers.get('idempotent-replayed') === 'true', tries: r.tries };
  }

  const list = async (query: ListJobsQuery = {}, o: CallOptions = {}) =>
    (await request<JobPage>('GET', '/v1/jobs', { query: { ...query }, signal: o.signal })).body;

  /** POST to a job's action route: sent again only when the server surely did not act. */
  const act = async <T>(path: string, body: unknown, o: CallOptions) =>
    (await request<T>('POST', path, { body, signal: o.signal, retryMode: 'unprocessed' })).body;

  return {
    create: async <I extends Record<string, unknown>, R>(operation: string, input: I, o: CreateOptions) =>
      (await submit<I, R>(operation, input, o)).job,
    submit,
    get: async (id, o = {}) => (await request<Job>('GET', `/v1/jobs/${enc(id)}`, { signal: o.signal })).body,
    list,
    async *iterate(query = {}, o = {}) {
      let cursor: string | null = null;
      do {
        const page: JobPage = await list({ ...query, cursor }, o);
        yield* page.items;
        cursor = page.nextCursor;
      } while (cursor);
    },
    async wait(id, o = {}) {
      const until = o.until ?? ((job: Job) => SETTLED_STATES.includes(job.state));
      const deadline = Date.now() + (o.timeoutMs ?? 5 * 60_000);
      for (;;) {
        const left = deadline - Date.now();
        const waitMs = Math.max(0, Math.min(left, LONG_POLL_MAX_MS));
        const job = (
          await request<Job>('GET', `/v1/jobs/${enc(id)}`, {
            query: { waitMs: waitMs > 0 ? waitMs : undefined },
            signal: o.signal,
            // The server holds the request up to waitMs; the per-try timeout starts after that.
            timeoutMs: waitMs + timeoutMs,
          })
        ).body;
        if (until(job) || Date.now() >= deadline) return job;
        // The server answered early without the state we wait for (e.g. a custom `until`).
        if (SETTLED_STATES.includes(job.state))
          await sleep(Math.min(250, Math.max(0, deadline - Date.now())), o.signal);
      }
    },
    retry: (id, o = {}) =>
      act<Attempt>(
        `/v1/jobs/${enc(id)}/attempts`,
        (o.provider ? { provider: o.provider } : {}) satisfies StartAttemptBody,
        o,
      ),
    abandon: (id, n, reason, o = {}) =>
      act<Job>(`/v1/jobs/${enc(id)}/attempts/${n}/abandon`, { reason } satisfies AbandonAttemptBody, o),
    cancel: (id, o = {}) => act<Job>(`/v1/jobs/${enc(id)}/cancel`, {}, o),
  };
}

/** `client.providers`: the verification matrix, and a verification run. */
function providersApi(request: Transport, timeoutMs: number): OnejobClient['providers'] {
  return {
    list: async (o = {}) => (await request<ProviderList>('GET', '/v1/providers', { signal: o.signal })).body,
    verify: async (name, operation, o = {}) =>
      (
        await request<VerificationReport>('POST', `/v1/providers/${enc(name)}/verify`, {
          body: { operation } satisfies VerifyProviderBody,
          signal: o.signal,
          retryMode: 'unprocessed',
          // Verification calls the provider with every contract fixture: give it time.
          timeoutMs: Math.max(timeoutMs, 120_000),
        })
      ).body,
  };
}

/** `client.budgets`: spending limits per owner, currency and UTC period. */
function budgetsApi(request: Transport): OnejobClient['budgets'] {
  const path = (ownerId: string, currency: string) => `/v1/budgets/${enc(ownerId)}/${enc(currency)}`;
  return {
    mine: async (o = {}) => (await request<BudgetList>('GET', '/v1/budget', { signal: o.signal })).body,
    get: async (ownerId, currency, o = {}) =>
      (await request<Budget>('GET', path(ownerId, currency), { signal: o.signal })).body,
    // Setting the same budget twice leaves it as once: safe to send again after a network error.
    set: async (ownerId, currency, budget, o = {}) =>
      (
        await request<Budget>('PUT', path(ownerId, currency), {
          body: budget,
          signal: o.signal,
          retryMode: 'always',
        })
      ).body,
  };
}
