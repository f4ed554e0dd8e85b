// The `http` provider kind (contract section 3): one POST per attempt with the job id as
// Idempotency-Key, and an honest split between definite and ambiguous outcomes.
import http from 'node:http';
import https from 'node:https';
import type { HttpProviderConfig } from '../config/types.js';
import { redactUrls } from '../observability/redactUrl.js';
import { throttledOutcome } from './providerThrottle.js';
import type { AttemptError, Provider, ProviderCall, ProviderOutcome, ProviderStatus } from './types.js';

/** 4xx answers that do not prove the request was refused: the provider may still act on it. */
const AMBIGUOUS_4XX = new Set([408, 409, 425, 429]);

interface RawAnswer {
  status: number;
  text: string;
  /** The Retry-After header, if any. */
  retryAfter?: string | undefined;
}

type Sent =
  | { kind: 'answer'; answer: RawAnswer }
  /** The request provably never reached the provider (no connection was made). */
  | { kind: 'not_sent'; error: AttemptError }
  /** The connection was made, then something failed: the provider may have acted. */
  | { kind: 'lost'; error: AttemptError };

function errorCode(error: unknown): string {
  const code = (error as { code?: unknown })?.code;
  return typeof code === 'string' ? code : 'unknown';
}

/**
 * One request on a fresh connection. A pooled keep-alive socket that the server closed
 * meanwhile fails after "sending", which would turn an unsent request into an unknown
 * one; a fresh connection makes "connection refused" proof that nothing was sent.
 */
function send(
  method: 'GET' | 'POST',
  target: string,
  headers: Record<string, string>,
  body: string | undefined,
  signal: AbortSignal | undefined,
): Promise<Sent> {
  return new Promise((resolve) => {
    const url = new URL(target);
    const lib = url.protocol === 'https:' ? https : http;
    let connected = false;
    let settled = false;
    const finish = (s: Sent) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', onAbort);
      resolve(s);
    };
    const req = lib.request(url, {
      method,
      agent: false,
      headers: {
        ...headers,
        ...(body !== undefined ? { 'content-length': Buffer.byteLength(body).toString() } : {}),
      },
    });
    const onAbort = () => {
      req.destroy();
      const error = { code: 'timeout', message: `no answer from ${url.origin} before the attempt deadline` };
      finish(
        connected
          ? { kind: 'lost', error }
          : { kind: 'not_sent', error: { ...error, code: 'aborted_before_send' } },
      );
    };
    if (signal?.aborted) return onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    req.on('socket', (socket) => {
      socket.once(url.protocol === 'https:' ? 'secureConnect' : 'connect', () => {
        connected = true;
      });
    });
    req.on('error', (error) => {
      const code = errorCode(error);
      const e = {
        code: connected
          ? `connection_${code.toLowerCase()}`
          : code === 'ECONNREFUSED'
            ? 'connection_refused'
            : `connect_${code.toLowerCase()}`,
        // Attempt errors are stored and shown to the job's owner: no credentials or paths.
        message: redactUrls(error.message),
        cause: code,
      };
      finish(connected ? { kind: 'lost', error: e } : { kind: 'not_sent', error: e });
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        finish({
          kind: 'answer',
          answer: {
            status: res.statusCode ?? 0,
            text: Buffer.concat(chunks).toString('utf8'),
            retryAfter: res.headers['retry-after'],
          },
        }),
      );
      res.on('error', (error) =>
        finish({ kind: 'lost', error: { code: 'response_interrupted', message: redactUrls(error.message) } }),
      );
    });
    req.end(body);
  });
}

function parse(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: text === '' ? null : JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/**
 * Classifies an HTTP answer as contract section 3 says. A definite failure whose status
 * the operation lists in `permanentStatuses` is final: no retry follows. A 429 or 503
 * with Retry-After is a definite `provider_throttled` failure (providerThrottle.ts).
 */
export function classifyAnswer(
  answer: RawAnswer,
  costMicros?: number,
  permanentStatuses: readonly number[] = [],
): ProviderOutcome {
  const cost = costMicros !== undefined ? { costMicros } : {};
  // 429 or 503 with Retry-After: refused for now, nothing done; the provider is paused.
  const throttled = throttledOutcome(answer.status, answer.retryAfter);
  if (throttled) return throttled;
  const body = parse(answer.text);
  const detail = body.ok ? body.value : answer.text.slice(0, 2000);
  if (answer.status >= 200 && answer.status < 300) {
    if (!body.ok) {
      // The provider says it did the work but the result cannot be read: done, maybe; never "failed".
      return {
        kind: 'unknown',
        error: { code: 'invalid_response', message: `HTTP ${answer.status} with a body that is not JSON` },
        ...cost,
      };
    }
    return { kind: 'success', result: body.value, ...cost };
  }
  const error: AttemptError = {
    code: `http_${answer.status}`,
    message: `provider answered HTTP ${answer.status}`,
    body: detail,
  };
  if (answer.status >= 400 && answer.status < 500 && !AMBIGUOUS_4XX.has(answer.status)) {
    if (permanentStatuses.includes(answer.status)) error.finalBy = 'permanent_status';
    return { kind: 'failure', error, ...cost };
  }
  return { kind: 'unknown', error, ...cost };
}

export function createHttpProvider(name: string, config: HttpProviderConfig): Provider {
  const perCall = config.prices?.perCallMicros;
  const headersFor = (call: Pick<ProviderCall, 'idempotencyKey' | 'attempt' | 'traceparent'>) => ({
    ...config.headers,
    'idempotency-key': call.idempotencyKey,
    'x-onejob-attempt': String(call.attempt),
    ...(call.traceparent ? { traceparent: call.traceparent } : {}),
  });

  const provider: Provider = {
    name,
    kind: 'http',
    idempotent: config.idempotent === true,
    async call(call) {
      const body = JSON.stringify({
        jobId: call.jobId,
        attempt: call.attempt,
        operation: call.operation.name,
        input: call.input,
      });
      const sent = await send(
        'POST',
        config.url,
        { ...headersFor(call), 'content-type': 'application/json', accept: 'application/json' },
        body,
        call.signal,
      );
      if (sent.kind === 'not_sent') return { kind: 'failure', error: sent.error };
      if (sent.kind === 'lost') return { kind: 'unknown', error: sent.error };
      return classifyAnswer(sent.answer, perCall, call.operation.permanentStatuses);
    },
  };
  if (config.statusUrl) {
    const template = config.statusUrl;
    provider.status = async (call): Promise<ProviderStatus> => {
      const url = template.replaceAll('{key}', encodeURIComponent(call.idempotencyKey));
      const sent = await send(
        'GET',
        url,
        { ...headersFor(call), accept: 'application/json' },
        undefined,
        call.signal,
      );
      if (sent.kind !== 'answer') return { kind: 'unknown', error: sent.error };
      // 404: no request with this key ever arrived. Otherwise the answer reads like the original one.
      if (sent.answer.status === 404) return { kind: 'not_found' };
      // A throttled status query says nothing of the request it asks about: no pause here.
      // Found, the request was made and priced like any call: its cost is the one its lost
      // answer would have carried, so the attempt's hold posts it instead of releasing it.
      return classifyAnswer(
        { ...sent.answer, retryAfter: undefined },
        sent.answer.status === 429 ? undefined : perCall,
        call.operation.permanentStatuses,
      );
    };
  }
  return provider;
}
