// DATABASE_URL with several hosts, libpq style: `postgres://u@h1:5432,h2:5433/db?target_session_attrs=read-write`.
// node-postgres parses one host only (a host list even throws "Invalid URL"), so onejob
// splits the list here into one ordinary single-host URL per host, and connectToPrimary.ts
// picks among them.

/**
 * Which session a connection must get (libpq's `target_session_attrs`, the values that
 * make sense for a writer):
 * - `read-write`: the session accepts writes by default (`SHOW transaction_read_only` is
 *   `off`): not a standby, and not a primary with `default_transaction_read_only = on`.
 * - `primary`: the server is not in recovery (`pg_is_in_recovery()` is false), even if
 *   read-only by default.
 * - `any`: the first host that accepts the connection, unchecked.
 */
export type TargetSessionAttrs = 'any' | 'read-write' | 'primary';

export const TARGET_SESSION_ATTRS: readonly TargetSessionAttrs[] = ['any', 'read-write', 'primary'];

/** libpq values that only make sense for a reader; onejob writes, so it refuses them. */
const READER_ATTRS = new Set(['read-only', 'standby', 'prefer-standby']);

export interface DatabaseHost {
  /** Host name, IP address (IPv6 without brackets) or Unix socket directory. */
  host: string;
  port: number;
  /** An ordinary URL naming this host alone, as node-postgres reads it. */
  connectionString: string;
}

export interface HostList {
  hosts: DatabaseHost[];
  targetSessionAttrs: TargetSessionAttrs;
  /**
   * True when the URL is one node-postgres reads as it is: one host and no
   * `target_session_attrs`. Such a URL is used unchanged and no session is checked.
   */
  plain: boolean;
}

/** A DATABASE_URL onejob cannot use, with what is wrong in words (never the password). */
export class DatabaseUrlError extends Error {
  override name = 'DatabaseUrlError';
}

const DEFAULT_PORT = 5432;
const URL_PATTERN = /^(postgres(?:ql)?:\/\/)([^/?#]*)([^?#]*)(\?[^#]*)?(#.*)?$/i;

/**
 * Splits a PostgreSQL URL into its hosts. Hosts come from the authority
 * (`h1:5432,h2:5433`, `[::1]:5432`, a percent-encoded socket directory) or from the
 * `host` and `port` parameters (comma lists; one port applies to every host, as in libpq).
 * Without `target_session_attrs`, a URL with several hosts asks for `read-write` (libpq's
 * default is `any`, which would let onejob settle on a standby it cannot write to).
 *
 * @example
 * ```ts
 * parseHostList('postgres://u@h1,h2:5433/db?target_session_attrs=primary').hosts.map((h) => h.port); // [5432, 5433]
 * ```
 */
export function parseHostList(url: string): HostList {
  const match = URL_PATTERN.exec(url.trim());
  if (!match) {
    // Not a URL (a key=value string, or something else): node-postgres reads it or says why.
    return {
      hosts: [{ host: '', port: DEFAULT_PORT, connectionString: url }],
      targetSessionAttrs: 'any',
      plain: true,
    };
  }
  const [, scheme, authority = '', path = '', query = '', fragment = ''] = match;
  const at = authority.lastIndexOf('@');
  const userinfo = at >= 0 ? authority.slice(0, at + 1) : '';
  const hostPart = at >= 0 ? authority.slice(at + 1) : authority;
  const params = new URLSearchParams(query.slice(1));

  const attrsValue = params.get('target_session_attrs');
  const targetSessionAttrs = parseAttrs(attrsValue);
  const named = hostPart === '' ? [] : hostPart.split(',').map(splitHostPort);
  const queryHosts = params.has('host') ? (params.get('host') ?? '').split(',') : undefined;
  const queryPorts = params.has('port') ? (params.get('port') ?? '').split(',') : undefined;
  if (queryHosts && named.length > 0)
    throw new DatabaseUrlError(
      'DATABASE_URL names hosts both before the path and in its "host" parameter; name them once',
    );

  const names = queryHosts ?? (named.length > 0 ? named.map((n) => n.host) : ['']);
  const ports = resolvePorts(names.length, named, queryPorts);
  if (names.length === 1 && attrsValue === null) {
    return {
      hosts: [{ host: names[0]!, port: ports[0]!, connectionString: url }],
      targetSessionAttrs: 'any',
      plain: true,
    };
  }

  params.delete('target_session_attrs');
  params.delete('host');
  params.delete('port');
  const hosts = names.map((host, i) => {
    const port = ports[i]!;
    const rest = new URLSearchParams(params);
    let authorityHost: string;
    if (host.startsWith('/')) {
      // A socket directory travels as a parameter; the authority stays empty.
      rest.set('host', host);
      rest.set('port', String(port));
      authorityHost = '';
    } else {
      authorityHost = `${host.includes(':') ? `[${host}]` : encodeURIComponent(host)}:${port}`;
    }
    const search = rest.toString();
    return {
      host,
      port,
      connectionString: `${scheme}${userinfo}${authorityHost}${path}${search ? `?${search}` : ''}${fragment}`,
    };
  });
  return {
    hosts,
    // A single host keeps libpq's default; a list asks for a writer unless told otherwise.
    targetSessionAttrs: attrsValue === null && hosts.length > 1 ? 'read-write' : targetSessionAttrs,
    plain: false,
  };
}

/** What `target_session_attrs` asks for; libpq's default, `any`, when the URL does not say. */
function parseAttrs(value: string | null): TargetSessionAttrs {
  if (value === null) return 'any';
  if ((TARGET_SESSION_ATTRS as readonly string[]).includes(value)) return value as TargetSessionAttrs;
  if (READER_ATTRS.has(value))
    throw new DatabaseUrlError(
      `DATABASE_URL asks for target_session_attrs=${value}, a read-only session; onejob writes, so use read-write, primary or any`,
    );
  throw new DatabaseUrlError(
    `DATABASE_URL has target_session_attrs=${value}; onejob accepts ${TARGET_SESSION_ATTRS.join(', ')}`,
  );
}

function splitHostPort(entry: string): { host: string; port: string | undefined } {
  const bracketed = /^\[([^\]]*)\](?::(.*))?$/.exec(entry);
  if (bracketed) return { host: bracketed[1]!, port: bracketed[2] };
  const colon = entry.lastIndexOf(':');
  if (colon < 0) return { host: decodeHost(entry), port: undefined };
  return { host: decodeHost(entry.slice(0, colon)), port: entry.slice(colon + 1) };
}

function decodeHost(host: string): string {
  try {
    return decodeURIComponent(host);
  } catch {
    throw new DatabaseUrlError(`DATABASE_URL has a host that is not valid percent-encoding: "${host}"`);
  }
}

function resolvePorts(
  count: number,
  named: { port: string | undefined }[],
  queryPorts: string[] | undefined,
): number[] {
  if (queryPorts && named.some((n) => n.port !== undefined))
    throw new DatabaseUrlError(
      'DATABASE_URL names ports both after its hosts and in its "port" parameter; name them once',
    );
  if (queryPorts && queryPorts.length !== 1 && queryPorts.length !== count)
    throw new DatabaseUrlError(
      `DATABASE_URL names ${count} hosts and ${queryPorts.length} ports; give one port for all or one per host`,
    );
  return Array.from({ length: count }, (_, i) => {
    const text = queryPorts ? queryPorts[queryPorts.length === 1 ? 0 : i] : named[i]?.port;
    if (text === undefined || text === '') return DEFAULT_PORT;
    const port = Number(text);
    if (!/^\d+$/.test(text) || port < 1 || port > 65535)
      throw new DatabaseUrlError(`DATABASE_URL has "${text}" where a port number belongs`);
    return port;
  });
}
