import { ConfigError } from '../config/loadConfig.js';
import type { InboxSourceConfig, OnejobConfig } from '../config/types.js';
import {
  DEFAULT_TOLERANCE_SECONDS,
  type EventIdSource,
  type SignatureScheme,
  type SignatureVerifier,
  signatureScheme,
  signatureSchemeNames,
} from './signatureSchemes.js';

/** An inbox source as the route uses it: config resolved, verifier built from the secret. */
export interface InboxSource {
  name: string;
  ownerId: string;
  operation: string;
  /** Where the event id is: a request header, a JSON pointer into the signed body, or its SHA-256. */
  eventId: EventIdSource;
  verifier: SignatureVerifier;
}

/**
 * Builds every configured source. Throws ConfigError (the server refuses to start) for an
 * unknown scheme, an unset, unusable or short secret, a setting the scheme does not have,
 * or an event id the signature does not cover.
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
  /** The config file, named in errors. */
  file = 'config',
): Map<string, InboxSource> {
  const sources = new Map<string, InboxSource>();
  for (const [name, src] of Object.entries(config.inbox?.sources ?? {})) {
    const path = `/inbox/sources/${name}`;
    const scheme = signatureScheme(src.scheme);
    if (!scheme) {
      throw new ConfigError(
        `${path}/scheme`,
        `names scheme "${src.scheme}"; known schemes: ${signatureSchemeNames().join(', ')}`,
        file,
      );
    }
    for (const setting of ['toleranceSeconds', 'allowSha1'] as const) {
      if (src[setting] !== undefined && !scheme.settings.includes(setting)) {
        throw new ConfigError(`${path}/${setting}`, `is not a setting of the ${src.scheme} scheme`, file);
      }
    }
    const eventId = eventIdSource(src, scheme, path, file);
    const secret = env[src.secretEnv];
    if (!secret)
      throw new ConfigError(
        `${path}/secretEnv`,
        `names environment variable ${src.secretEnv}, which is not set`,
        file,
      );
    let verifier: SignatureVerifier;
    try {
      verifier = scheme.verifier(secret, {
        toleranceSeconds: src.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS,
        allowSha1: src.allowSha1 ?? false,
      });
    } catch (error) {
      throw new ConfigError(
        `${path}/secretEnv`,
        `holds a secret the ${src.scheme} scheme cannot use: ${(error as Error).message}`,
        file,
      );
    }
    sources.set(name, { name, ownerId: src.ownerId, operation: src.operation, eventId, verifier });
  }
  return sources;
}

// An event id the signature does not cover lets anyone holding one captured delivery
// replay it under new ids, each making a new job: refused unless the scheme has no signed
// id to offer and the source accepts that trade-off in so many words.
function eventIdSource(
  src: InboxSourceConfig,
  scheme: SignatureScheme,
  path: string,
  file: string,
): EventIdSource {
  const unsignedHeaders = scheme.unsignedHeaders ?? [];
  if (src.unsignedEventId !== undefined && unsignedHeaders.length === 0) {
    throw new ConfigError(
      `${path}/unsignedEventId`,
      `is not a setting of the ${src.scheme} scheme: its event ids must be signed`,
      file,
    );
  }
  if (src.eventId === undefined) return scheme.defaultEventId;
  if (src.eventId.startsWith('json:')) return { kind: 'json', pointer: src.eventId.slice('json:'.length) };
  const header = src.eventId.slice('header:'.length).toLowerCase();
  if (scheme.signedHeaders.includes(header)) return { kind: 'header', name: header };
  if (unsignedHeaders.includes(header)) {
    if (src.unsignedEventId === true) return { kind: 'header', name: header };
    throw new ConfigError(
      `${path}/eventId`,
      `names header ${header}, which the ${src.scheme} signature does not cover: a captured delivery ` +
        'could be replayed under new ids. Set "unsignedEventId": true to accept that, or leave eventId unset',
      file,
    );
  }
  const signed = [...scheme.signedHeaders.map((h) => `header:${h}`), 'json:/pointer'];
  throw new ConfigError(
    `${path}/eventId`,
    `names header ${header}, which the ${src.scheme} signature does not cover; use ${signed.join(' or ')}`,
    file,
  );
}
