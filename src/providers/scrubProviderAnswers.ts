// Whatever a provider says is kept: attempt errors are stored, returned to the job's owner
// and logged. A provider may echo what it was sent (`Incorrect API key provided: sk-…`) or
// a URL with credentials from its own infrastructure. Every string of an outcome's error
// and rejected output passes through here first: configured secrets become `[redacted]`,
// bearer tokens too, and URLs keep only scheme, host and port.
import type { OnejobConfig } from '../config/types.js';
import { redactUrls } from '../observability/redactUrl.js';
import type { Provider, ProviderOutcome } from './types.js';

/** Shorter configured values are not scrubbed: replacing them would garble ordinary text. */
export const MIN_SCRUBBED_SECRET_LENGTH = 8;

const REDACTED = '[redacted]';
const BEARER = /\b(Bearer\s+)[^\s"',;]+/gi;

/** The values of every provider's `apiKeyEnv` and configured header, longest first. */
export function configuredSecrets(config: OnejobConfig, env: NodeJS.ProcessEnv): string[] {
  const secrets = new Set<string>();
  for (const provider of Object.values(config.providers)) {
    const p = provider as { apiKeyEnv?: string; headers?: Record<string, string> };
    const key = p.apiKeyEnv ? env[p.apiKeyEnv] : undefined;
    if (key) secrets.add(key);
    for (const value of Object.values(p.headers ?? {})) {
      secrets.add(value);
      // `Authorization: Bearer xyz` is echoed as often without its scheme as with it.
      const credential = /^\S+\s+(\S+)$/.exec(value)?.[1];
      if (credential) secrets.add(credential);
    }
  }
  return [...secrets]
    .filter((s) => s.length >= MIN_SCRUBBED_SECRET_LENGTH)
    .sort((a, b) => b.length - a.length);
}

/** `text` with secrets, bearer tokens and URL credentials, paths and queries removed. */
export function scrubText(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (out.includes(secret)) out = out.replaceAll(secret, REDACTED);
  return redactUrls(out.replace(BEARER, `$1${REDACTED}`));
}

/** A copy of `value` with every string (and object key) scrubbed. Iterative over nesting. */
export function scrubValue(value: unknown, secrets: readonly string[]): unknown {
  if (typeof value === 'string') return scrubText(value, secrets);
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => scrubValue(v, secrets));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[scrubText(k, secrets)] = scrubValue(v, secrets);
  return out;
}

/** The outcome with its error and rejected output scrubbed; a success's result is the answer asked for. */
export function scrubOutcome<T extends ProviderOutcome | { kind: 'not_found' }>(
  outcome: T,
  secrets: readonly string[],
): T {
  if (outcome.kind === 'success' || outcome.kind === 'not_found') return outcome;
  const scrubbed = { ...outcome, error: scrubValue(outcome.error, secrets) } as T & {
    rejectedOutput?: unknown;
  };
  if ('rejectedOutput' in outcome && outcome.rejectedOutput !== undefined)
    scrubbed.rejectedOutput = scrubValue(outcome.rejectedOutput, secrets);
  return scrubbed;
}

function scrubThrown(error: unknown, secrets: readonly string[]): unknown {
  if (!(error instanceof Error)) return scrubValue(error, secrets);
  const message = scrubText(error.message, secrets);
  if (message === error.message) return error;
  const copy = new Error(message);
  copy.name = error.name;
  copy.stack = error.stack?.replace(error.message, message);
  return copy;
}

/** `provider` whose outcomes and thrown errors are scrubbed before anyone keeps them. */
export function scrubbedProvider(provider: Provider, secrets: readonly string[]): Provider {
  const wrapped: Provider = {
    name: provider.name,
    kind: provider.kind,
    idempotent: provider.idempotent,
    call: (call) =>
      provider.call(call).then(
        (outcome) => scrubOutcome(outcome, secrets),
        (error: unknown) => Promise.reject(scrubThrown(error, secrets)),
      ),
  };
  const status = provider.status?.bind(provider);
  if (status)
    wrapped.status = (call) =>
      status(call).then(
        (outcome) => scrubOutcome(outcome, secrets),
        (error: unknown) => Promise.reject(scrubThrown(error, secrets)),
      );
  return wrapped;
}
