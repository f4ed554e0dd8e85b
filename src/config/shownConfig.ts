// A configuration as `onejob config show` prints it. Keys and API secrets are named by their
// environment variable already (`apiKeyEnv`, `secretEnv`), so those print as they are; what a
// file may still hold inline (a password in a broker URL, a token in a webhook's query string,
// header values such as Authorization) is masked, so the output can be pasted into a ticket.

const URL_KEYS = new Set(['url', 'baseUrl', 'statusUrl']);
export const MASK = '***';

/** `url` with its userinfo and its query string masked; scheme, host, port and path kept. */
export function maskedUrl(url: string): string {
  const m = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*)([^?#]*)(\?[^#]*)?(#.*)?$/i.exec(url);
  if (!m) return url;
  const [, scheme, authority = '', path = '', query, fragment = ''] = m;
  const at = authority.lastIndexOf('@');
  const host = at === -1 ? authority : `${MASK}@${authority.slice(at + 1)}`;
  return `${scheme}${host}${path}${query ? `?${MASK}` : ''}${fragment}`;
}

/** A deep copy of `config` with inline secrets masked (see the top of this file). */
export function shownConfig(config: unknown): unknown {
  const walk = (value: unknown, key: string | undefined): unknown => {
    if (typeof value === 'string') return key && URL_KEYS.has(key) ? maskedUrl(value) : value;
    if (Array.isArray(value)) return value.map((v) => walk(v, undefined));
    if (value === null || typeof value !== 'object') return value;
    if (key === 'headers') return Object.fromEntries(Object.keys(value).map((name) => [name, MASK] as const));
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v, k)] as const));
  };
  return walk(config, undefined);
}
