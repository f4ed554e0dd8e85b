// What the inference adapters share: preparing the prompt, sending JSON, classifying
// what came back (definite failure, unknown, or a model answer), and checking that
// answer against the operation's contract. The adapters only speak their wire format.

import type { OperationConfig, Prices, ProviderConfig } from '../../config/types.js';
import { redactedMessage, redactUrl, redactUrls } from '../../observability/redactUrl.js';
import { throttledOutcome } from '../providerThrottle.js';
import type { AttemptError, ProviderCall, ProviderOutcome, Usage } from '../types.js';
import { checkOutput, describeViolations } from './checkOutput.js';
import { countPromptTokens } from './checkTokenizer.js';
import { inferenceCost } from './inferenceCost.js';
import { PromptRenderError, type RenderedPrompt, renderPrompt } from './renderPrompt.js';

export type Prepared =
  | { ok: true; prompt: RenderedPrompt; config: OperationConfig }
  | { ok: false; outcome: ProviderOutcome };

/** Renders the prompt of an `inference.chat` call; anything else is a definite failure (nothing was sent). */
export function prepareChat(call: ProviderCall, providerName: string): Prepared {
  const config = call.operation.config;
  if (!config || call.operation.kind !== 'inference.chat' || !config.prompt) {
    return {
      ok: false,
      outcome: {
        kind: 'failure',
        error: {
          code: 'operation_kind_unsupported',
          message: `provider ${providerName} runs inference.chat operations only, not ${call.operation.kind}`,
        },
      },
    };
  }
  try {
    return { ok: true, prompt: renderPrompt(config.prompt, call.input), config };
  } catch (error) {
    if (!(error instanceof PromptRenderError)) throw error;
    return {
      ok: false,
      outcome: {
        kind: 'failure',
        error: { code: 'input_invalid', message: error.message, errors: error.problems },
      },
    };
  }
}

/** The temperature of a call: the caller's, else the contract's (the one verification proved). */
export function temperatureOf(call: ProviderCall, config: OperationConfig): number | undefined {
  return call.temperature ?? config.contract?.temperature;
}

export type HttpAnswer = { status: number; headers: Headers; text: string };

const DEFINITE_NETWORK_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ERR_INVALID_URL']);

function networkCode(error: unknown): string | undefined {
  const cause = (error as { cause?: { code?: unknown; errors?: { code?: unknown }[] } }).cause;
  if (typeof cause?.code === 'string') return cause.code;
  const first = cause?.errors?.find((e) => typeof e.code === 'string');
  return typeof first?.code === 'string' ? first.code : undefined;
}

/**
 * POSTs JSON. Resolves with the answer, or with an outcome when there is none: a refused
 * connection is a definite failure (nothing was sent); an abort, a reset or a broken body
 * is unknown (the provider may be computing, and billing, right now).
 */
export async function postJson(
  url: string,
  headers: Record<string, string>,
  body: unknown,
  signal: AbortSignal,
): Promise<HttpAnswer | { outcome: ProviderOutcome }> {
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
      signal,
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, text };
  } catch (error) {
    return { outcome: fetchFailure(url, error, signal) };
  }
}

/**
 * What a request that threw means: a refused connection is a definite failure (nothing
 * was sent); an abort, a reset or a broken body is unknown.
 */
export function fetchFailure(url: string, error: unknown, signal: AbortSignal): ProviderOutcome {
  if (signal.aborted) {
    const reason =
      signal.reason instanceof Error ? signal.reason.message : String(signal.reason ?? 'aborted');
    return { kind: 'unknown', error: { code: 'aborted', message: `the request was aborted: ${reason}` } };
  }
  const code = networkCode(error);
  if (code && DEFINITE_NETWORK_CODES.has(code)) {
    return {
      kind: 'failure',
      error: {
        code: 'connection_refused',
        message: `${redactUrl(url)}: ${code}; the request was never sent`,
      },
    };
  }
  return {
    kind: 'unknown',
    error: {
      code: 'connection_reset',
      message: `${redactUrl(url)}: ${code ?? redactedMessage(error)}; the provider may have received the request`,
    },
  };
}

/** Statuses after which the provider may or may not be doing the work. */
const AMBIGUOUS_4XX = new Set([408, 409, 425, 429]);

/** A non-2xx answer: 5xx and the ambiguous 4xx are unknown, the other 4xx are definite failures. */
export function statusOutcome(answer: HttpAnswer, providerMessage: string | undefined): ProviderOutcome {
  const error: AttemptError = {
    code: `http_${answer.status}`,
    // The provider's own message may echo URLs (with keys in their query): stored, so redacted.
    message: providerMessage
      ? `HTTP ${answer.status}: ${redactUrls(providerMessage)}`
      : `HTTP ${answer.status}`,
  };
  const retryAfter = answer.headers.get('retry-after');
  // 429 or 503 with Retry-After: refused for now, nothing done; the provider is paused.
  const throttled = throttledOutcome(answer.status, retryAfter);
  if (throttled) return throttled;
  if (retryAfter) error.retryAfter = retryAfter;
  if (answer.status >= 400 && answer.status < 500 && !AMBIGUOUS_4XX.has(answer.status))
    return { kind: 'failure', error };
  return { kind: 'unknown', error };
}

export function parseEnvelope(
  answer: HttpAnswer,
): { ok: true; body: Record<string, unknown> } | { ok: false } {
  try {
    const body = JSON.parse(answer.text) as unknown;
    return typeof body === 'object' && body !== null && !Array.isArray(body)
      ? { ok: true, body: body as Record<string, unknown> }
      : { ok: false };
  } catch {
    return { ok: false };
  }
}

/** A 2xx whose body is not the provider's wire format: the call happened but gave nothing usable. */
export function envelopeFailure(
  providerName: string,
  answer: HttpAnswer,
  why: string,
  usage?: Usage,
  prices?: Prices,
): ProviderOutcome {
  return {
    kind: 'failure',
    error: {
      code: 'provider_response_invalid',
      message: `${providerName} answered HTTP ${answer.status} but ${why}`,
    },
    rejectedOutput: answer.text.slice(0, 10_000),
    ...withCost(usage, prices),
  };
}

function withCost(
  usage: Usage | undefined,
  prices: Prices | undefined,
): { usage?: Usage; costMicros?: number } {
  const cost = inferenceCost(prices, usage);
  return { ...(usage ? { usage } : {}), ...(cost !== undefined ? { costMicros: cost } : {}) };
}

/** The model answered: the answer must honour the output contract to count as a result. */
export function answerOutcome(
  config: OperationConfig,
  text: string,
  usage: Usage | undefined,
  prices: Prices | undefined,
): ProviderOutcome {
  const checked = checkOutput(config, text);
  if (checked.ok) return { kind: 'success', result: checked.value, ...withCost(usage, prices) };
  return {
    kind: 'failure',
    error: {
      code: 'output_contract_violation',
      message: describeViolations(checked.violations),
      violations: checked.violations,
    },
    rejectedOutput: checked.rejectedOutput,
    ...withCost(usage, prices),
  };
}

/**
 * Adds an estimate of what an unfinished call cost so far (the prompt tokens, counted with
 * the provider's tokenizer), so an aborted loser of a hedge still shows its price.
 */
export async function withEstimatedCost(
  outcome: ProviderOutcome,
  provider: ProviderConfig,
  prompt: RenderedPrompt,
): Promise<ProviderOutcome> {
  // Only a call cut off after sending may have been billed; a refused one was not.
  if (
    outcome.kind !== 'unknown' ||
    outcome.usage ||
    !['aborted', 'connection_reset'].includes(outcome.error.code)
  )
    return outcome;
  const inputTokens = await countPromptTokens(provider, prompt);
  if (inputTokens === undefined) return outcome;
  const usage: Usage = { inputTokens, estimated: true };
  return { ...outcome, ...withCost(usage, provider.prices) };
}

/** Headers every inference call carries: the job's idempotency identity and the attempt. */
export function identityHeaders(call: ProviderCall): Record<string, string> {
  return {
    'idempotency-key': call.idempotencyKey,
    'x-request-id': call.attemptId,
    'x-onejob-attempt': String(call.attempt),
    'x-onejob-job-id': call.jobId,
    ...(call.traceparent ? { traceparent: call.traceparent } : {}),
  };
}
