import { ConfigError } from '../config/loadConfig.js';
import type { OnejobConfig } from '../config/types.js';
import {
  DEFAULT_TOLERANCE_SECONDS,
  type SignatureVerifier,
  signatureScheme,
  signatureSchemeNames,
} from './signatureSchemes.js';

/** An inbox source as the route uses it: config resolved, verifier built from the secret. */
export interface InboxSource {
  name: string;
  ownerId: string;
  operation: string;
  /** Where the event id is: a request header, or a JSON pointer into the body. */
  eventId: { kind: 'header'; name: string } | { kind: 'json'; pointer: string };
  verifier: SignatureVerifier;
}

/**
 * Builds every configured source. Throws ConfigError (the server refuses to start) for an
 * unknown scheme, an unset secret or a secret the scheme cannot use.
 *
 * @example
 * ```ts
 * const sources = inboxSources(await loadConfig('onejob.json'));
 * const shop = sources.get('shop');
 * ```
 */
export function inboxSources(
  config: OnejobConfig,
  env: NodeJS.ProcessEnv = process.env,
): Map<string, InboxSource> {
  const sources = new Map<string, InboxSource>();
  for (const [name, src] of Object.entries(config.inbox?.sources ?? {})) {
    const path = `/inbox/sources/${name}`;
    const scheme = signatureScheme(src.scheme);
    if (!scheme) {
      throw new ConfigError(
        `${path}/scheme`,
        `names scheme "${src.scheme}"; known schemes: ${signatureSchemeNames().join(', ')}`,
      );
    }
    const secret = env[src.secretEnv];
    if (!secret)
      throw new ConfigError(
        `${path}/secretEnv`,
        `names environment variable ${src.secretEnv}, which is not set`,
      );
    let verifier: SignatureVerifier;
    try {
      verifier = scheme(secret, { toleranceSeconds: src.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS });
    } catch (error) {
      throw new ConfigError(
        `${path}/secretEnv`,
        `holds a secret the ${src.scheme} scheme cannot use: ${(error as Error).message}`,
      );
    }
    const eventId = src.eventId.startsWith('header:')
      ? { kind: 'header' as const, name: src.eventId.slice('header:'.length).toLowerCase() }
      : { kind: 'json' as const, pointer: src.eventId.slice('json:'.length) };
    sources.set(name, { name, ownerId: src.ownerId, operation: src.operation, eventId, verifier });
  }
  return sources;
}
