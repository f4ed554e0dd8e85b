// Choosing a host from a DATABASE_URL host list (hostList.ts): every new connection tries
// the hosts in turn and keeps the first whose session is what `target_session_attrs` asks
// for. The pool (HostListPool.ts), the notification hub's LISTEN connection and the
// migration runner all connect through here.
import pg from 'pg';
import { type HostList, parseHostList, type TargetSessionAttrs } from './hostList.js';
import { sqlState, UNABLE_TO_CONNECT } from './sqlstate.js';

// One round trip answers both attributes. transaction_read_only is on in a standby and in a
// primary whose default_transaction_read_only is on.
const SESSION_SQL = `SELECT pg_is_in_recovery() AS in_recovery, current_setting('transaction_read_only') AS read_only`;

/** Why a connected session does not satisfy `attrs`, or undefined when it does. */
export async function sessionMismatch(
  client: Pick<pg.Client, 'query'>,
  attrs: TargetSessionAttrs,
): Promise<string | undefined> {
  if (attrs === 'any') return undefined;
  const { rows } = await client.query<{ in_recovery: boolean; read_only: string }>(SESSION_SQL);
  const row = rows[0];
  if (row?.in_recovery) return 'the server is a standby (in recovery)';
  if (attrs === 'read-write' && row?.read_only !== 'off')
    return 'the session is read-only (default_transaction_read_only)';
  return undefined;
}

// As in libpq: a server that refused the credentials or the database is not passed over
// for the next host (the hosts are meant to be copies of one another; the next one would
// refuse too, and hiding the error would hide the misconfiguration).
const FINAL_CODES = new Set(['28P01', '28000', '3D000']);

/** True when a failed connection should move on to the next host of the list. */
export function triesNextHost(error: unknown): boolean {
  return !FINAL_CODES.has(sqlState(error) ?? '');
}

/** No host of the list gave a suitable session. Its code, 08001, counts as "database unavailable". */
export class NoSuitableHostError extends Error {
  override name = 'NoSuitableHostError';
  readonly code = UNABLE_TO_CONNECT;
  constructor(
    readonly targetSessionAttrs: TargetSessionAttrs,
    readonly failures: readonly string[],
  ) {
    super(
      `no database host gave a ${targetSessionAttrs} session (target_session_attrs): ${failures.join('; ')}`,
    );
  }
}

/**
 * The order in which a host list is tried, shared by every connection made from one URL.
 * It starts with the host the last suitable connection went to and goes on in list order,
 * wrapping around: after a failover, new connections go straight to the new primary
 * instead of knocking on the dead one first (libpq starts from the first host every time).
 */
export class HostSelector {
  private preferred = 0;
  constructor(readonly list: HostList) {}

  /** Host indexes to try, the preferred one first. */
  order(): number[] {
    const n = this.list.hosts.length;
    return Array.from({ length: n }, (_, i) => (this.preferred + i) % n);
  }

  /** The host to try first. */
  first(): number {
    return this.preferred;
  }

  /** Host `index` failed: the next one in the list goes first, unless another connection moved on already. */
  failed(index: number): void {
    if (this.preferred === index) this.preferred = (index + 1) % this.list.hosts.length;
  }

  succeeded(index: number): void {
    this.preferred = index;
  }

  /** `host:port` of host `index`, for messages. */
  describe(index: number): string {
    const h = this.list.hosts[index]!;
    return `${h.host.includes(':') ? `[${h.host}]` : h.host || 'localhost'}:${h.port}`;
  }
}

/**
 * Opens one client on a host that satisfies the URL's `target_session_attrs`, trying the
 * hosts in turn. A plain single-host URL connects as node-postgres always did, unchecked.
 * Throws `NoSuitableHostError` (a "database unavailable" error) when none does.
 *
 * @example
 * ```ts
 * const client = await connectToPrimary('postgres://u@h1,h2/db?target_session_attrs=read-write', { application_name: 'x' });
 * ```
 */
export async function connectToPrimary(
  target: string | HostSelector,
  config: Omit<pg.ClientConfig, 'connectionString'> = {},
): Promise<pg.Client> {
  const selector = typeof target === 'string' ? new HostSelector(parseHostList(target)) : target;
  const { hosts, targetSessionAttrs, plain } = selector.list;
  if (plain) {
    const client = new pg.Client({ ...config, connectionString: hosts[0]!.connectionString });
    await client.connect();
    return client;
  }
  const failures: string[] = [];
  for (const index of selector.order()) {
    const client = new pg.Client({ ...config, connectionString: hosts[index]!.connectionString });
    // An error after connect (the server going away while we check it) must not go unheard.
    const ignore = () => {};
    client.on('error', ignore);
    try {
      await client.connect();
      const mismatch = await sessionMismatch(client, targetSessionAttrs);
      if (mismatch === undefined) {
        client.off('error', ignore);
        selector.succeeded(index);
        return client;
      }
      failures.push(`${selector.describe(index)}: ${mismatch}`);
    } catch (error) {
      if (!triesNextHost(error)) {
        await client.end().catch(() => undefined);
        throw error;
      }
      failures.push(`${selector.describe(index)}: ${(error as Error).message}`);
    }
    await client.end().catch(() => undefined);
    selector.failed(index);
  }
  throw new NoSuitableHostError(targetSessionAttrs, failures);
}
