// One HTTP call to the onejob API with retries: the only place the client touches fetch.
// Runs in browsers and in Node 20 (fetch, AbortController, setTimeout; nothing else).
import { OnejobClientError } from './OnejobClientError.js';
import {
  backoffDelay,
  parseRetryAfter,
  RETRYABLE_STATUSES,
  type ResolvedRetry,
  sleep,
} from './retryPolicy.js';
import type { Problem } from './types.js';

/**
 * The bearer token: a string, or a function that returns it before every request (to refresh it).
 */
export type TokenSource = string | (() => string | Promise<string>) | undefined;

/**
 * When a failed request may be sent again:
 * - `always`: on a network error too. Safe for reads and for requests whose repetition
 *   the server recognises (job creation carries the intent's idempotency key).
 * - `unprocessed`: only on 429/502/503/504, answers that mean the request did no work.
 *   For commands without a key (start an attempt, abandon, cancel), where a lost response
 *   leaves open whether the work happened: the caller reads the job to find out.
 */
export type RetryMode = 'always' | 'unprocessed';

export interface RequestOptions {
  query?: Record<string, string | number | boolean | undefined | null>;
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal | undefined;
  retryMode?: RetryMode;
  /** Per-try timeout; on expiry the try counts as a network error. */
  timeoutMs?: number;
}

export interface ApiResponse<T> {
  status: number;
  headers: Headers;
  body: T;
  /** Requests sent, retries included. */
  tries: number;
}

export interface TransportOptions {
  baseUrl: string;
  token: TokenSource;
  fetch: typeof fetch;
  retry: ResolvedRetry;
  timeoutMs: number;
}

export type Transport = <T>(
  method: string,
  path: string,
  options?: RequestOptions,
) => Promise<ApiResponse<T>>;

export function createTransport(options: TransportOptions): Transport {
  const base = options.baseUrl.replace(/\/+$/, '');
  const policy = options.retry;

  return async function request<T>(
    method: string,
    path: string,
    o: RequestOptions = {},
  ): Promise<ApiResponse<T>> {
    const url = base + path + queryString(o.query);
    const headers: Record<string, string> = {
      accept: 'application/json, application/problem+json',
      ...o.headers,
    };
    if (o.body !== undefined) headers['content-type'] = 'application/json';
    const token = typeof options.token === 'function' ? await options.token() : options.token;
    if (token) headers.authorization = `Bearer ${token}`;
    const body = o.body === undefined ? undefined : JSON.stringify(o.body);
    const timeoutMs = o.timeoutMs ?? options.timeoutMs;

    for (let tries = 1; ; tries++) {
      let failure: OnejobClientError;
      let retryAfterMs: number | undefined;
      try {
        const response = await fetchOnce(options.fetch, url, { method, headers, body }, o.signal, timeoutMs);
        const parsed = await readBody(response);
        if (response.ok)
          return { status: response.status, headers: response.headers, body: parsed as T, tries };
        failure = problemError(response, parsed, tries);
        if (!RETRYABLE_STATUSES.includes(response.status)) throw failure;
        retryAfterMs = parseRetryAfter(response.headers.get('retry-after'));
      } catch (error) {
        if (o.signal?.aborted) throw o.signal.reason;
        if (error instanceof OnejobClientError && error.code !== 'network_error') throw error;
        failure =
          error instanceof OnejobClientError
            ? error
            : new OnejobClientError({
                code: 'network_error',
                status: 0,
                detail: describe(error),
                tries,
                cause: error,
              });
        if ((o.retryMode ?? 'always') !== 'always') throw failure;
      }
      if (tries >= policy.maxTries || (retryAfterMs !== undefined && retryAfterMs > policy.maxRetryAfterMs)) {
        throw withTries(failure, tries);
      }
      const delayMs = backoffDelay(tries, policy, retryAfterMs);
      await policy.beforeRetry?.({
        retry: tries,
        delayMs,
        status: failure.status,
        error: failure,
        method,
        path,
      });
      await sleep(delayMs, o.signal);
    }
  };
}

async function fetchOnce(
  f: typeof fetch,
  url: string,
  init: RequestInit,
  signal: AbortSignal | undefined,
  timeoutMs: number,
): Promise<Response> {
  if (signal?.aborted) throw signal.reason;
  // One controller per try: aborted by the caller's signal or by the per-try timeout.
  const controller = new AbortController();
  const onAbort = () => controller.abort(signal?.reason);
  signal?.addEventListener('abort', onAbort, { once: true });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  try {
    const response = await f(url, { ...init, signal: controller.signal });
    // The body is read under the same timeout: a stalled body is as good as no answer.
    const text = await response.text();
    return new Response(text === '' || response.status === 204 ? null : text, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  } catch (error) {
    if (timedOut) {
      throw new OnejobClientError({
        code: 'network_error',
        status: 0,
        detail: `no response within ${timeoutMs} ms`,
        cause: error,
      });
    }
    throw error;
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }
}

async function readBody(response: Response): Promise<unknown> {
  const text = await response.text();
  if (text === '') return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function problemError(response: Response, body: unknown, tries: number): OnejobClientError {
  if (body && typeof body === 'object' && typeof (body as Problem).code === 'string') {
    const problem = body as Problem;
    return new OnejobClientError({
      code: problem.code,
      status: response.status,
      detail: problem.detail ?? problem.title ?? response.statusText,
      problem,
      tries,
    });
  }
  const snippet = typeof body === 'string' ? body.slice(0, 200) : response.statusText;
  return new OnejobClientError({
    code: 'unexpected_response',
    status: response.status,
    detail: snippet || `HTTP ${response.status}`,
    tries,
  });
}

function withTries(error: OnejobClientError, tries: number): OnejobClientError {
  if (error.tries === tries) return error;
  return new OnejobClientError({
    code: error.code,
    status: error.status,
    detail: error.detail,
    ...(error.problem ? { problem: error.problem } : {}),
    tries,
    cause: error.cause,
  });
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code
    ? `${error.message} (${cause.code})`
    : cause?.message
      ? `${error.message}: ${cause.message}`
      : error.message;
}

function queryString(query: RequestOptions['query']): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query))
    if (v !== undefined && v !== null && v !== '') params.set(k, String(v));
  const s = params.toString();
  return s ? `?${s}` : '';
}
