import { Webhook } from 'standardwebhooks';
import { redactUrl } from '../../observability/redactUrl.js';
import { eventJson, PublishError, type Publisher } from '../publisher.js';

export interface WebhookPublisherOptions {
  name?: string;
  url: string;
  /** The signing secret (Standard Webhooks: base64, optionally prefixed `whsec_`). */
  secret: string;
  headers?: Record<string, string>;
  timeoutMs?: number;
  concurrency?: number;
}

/** Shorter signing secrets are refused at start: a short HMAC key can be guessed offline. */
export const MIN_WEBHOOK_SECRET_BYTES = 24;

/**
 * Why `secret` cannot sign webhooks, or undefined when it can: Standard Webhooks secrets
 * are base64 (optionally prefixed `whsec_`) of at least MIN_WEBHOOK_SECRET_BYTES bytes.
 */
export function webhookSecretProblem(secret: string): string | undefined {
  const base64 = secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret;
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(base64) || base64.replace(/=+$/, '').length % 4 === 1) {
    return 'is not base64 (optionally prefixed whsec_)';
  }
  const bytes = Buffer.from(base64, 'base64').length;
  if (bytes < MIN_WEBHOOK_SECRET_BYTES) {
    return `decodes to ${bytes} bytes; use at least ${MIN_WEBHOOK_SECRET_BYTES} random bytes, such as whsec_$(head -c 32 /dev/urandom | base64)`;
  }
  return undefined;
}

/**
 * Why `url` cannot receive webhooks, or undefined when it can. fetch refuses a URL with
 * `user:password@` on every delivery, so such a URL would only dead-letter every event.
 */
export function webhookUrlProblem(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'is not a URL';
  }
  if (parsed.username || parsed.password)
    return 'holds user:password@, which no delivery can send; put credentials in `headers` instead';
  return undefined;
}

/** Network errors that prove the endpoint was not reached: nothing about the event. */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

/**
 * POSTs each event (CloudEvent JSON) signed per Standard Webhooks: `webhook-id` = event
 * id (the same on every retry, so the receiver can dedupe), `webhook-timestamp`,
 * `webhook-signature`. A 2xx response is success; any other answer counts as a failed
 * try and is retried with backoff until the endpoint takes it or it becomes a dead letter.
 */
/** Defaults of the `webhook` publisher's options (docs/configuration.md lists them). */
export const WEBHOOK_DEFAULTS = { timeoutMs: 10_000, concurrency: 16 } as const;

export function webhookPublisher(options: WebhookPublisherOptions): Publisher {
  const signer = new Webhook(options.secret);
  const timeout = options.timeoutMs ?? WEBHOOK_DEFAULTS.timeoutMs;
  return {
    name: options.name ?? 'webhook',
    kind: 'webhook',
    concurrency: options.concurrency ?? WEBHOOK_DEFAULTS.concurrency,
    async publish(e) {
      const body = eventJson(e);
      const now = new Date();
      const headers: Record<string, string> = {
        ...options.headers,
        'content-type': 'application/json',
        'user-agent': 'onejob-relay',
        'webhook-id': e.id,
        'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
        'webhook-signature': signer.sign(e.id, now, body),
      };
      let response: Response;
      try {
        response = await fetch(options.url, {
          method: 'POST',
          headers,
          body,
          signal: AbortSignal.timeout(timeout),
        });
      } catch (error) {
        const code = (error as { cause?: { code?: string } }).cause?.code;
        if (code && UNREACHABLE.has(code)) {
          throw new PublishError(`webhook endpoint ${redactUrl(options.url)} is unreachable (${code})`, {
            unavailable: true,
            cause: error,
          });
        }
        // Timeouts and resets after sending: the endpoint may be struggling with this
        // event, so the try counts.
        throw new PublishError(`webhook delivery failed: ${(error as Error).message}`, {
          unavailable: false,
          cause: error,
        });
      }
      await response.body?.cancel().catch(() => undefined);
      if (response.status >= 200 && response.status < 300) return {};
      throw new PublishError(`webhook endpoint answered ${response.status}`, { unavailable: false });
    },
    async close() {},
  };
}
