// A pg pool over a DATABASE_URL host list: each new connection goes to a host whose session
// satisfies `target_session_attrs` (connectToPrimary.ts). pg-pool makes one client per
// connection attempt and a client cannot be reconnected, so a client opens on the host
// the selector names, and the pool asks again (at most once per host) when that host
// failed or gave the wrong kind of session.
import pg from 'pg';
import { HostSelector, NoSuitableHostError, sessionMismatch, triesNextHost } from './connectToPrimary.js';
import { type HostList, parseHostList } from './hostList.js';

/** A connection attempt that failed on one host, so the next one may be tried. */
class HostFailure extends Error {
  override name = 'HostFailure';
  constructor(
    readonly where: string,
    reason: string,
    options?: ErrorOptions,
  ) {
    super(`${where}: ${reason}`, options);
  }
}

const hostFailureOf = (error: unknown): HostFailure | undefined => {
  if (error instanceof HostFailure) return error;
  // pg-pool wraps an error that came with its connection timeout.
  const cause = (error as { cause?: unknown } | undefined)?.cause;
  return cause instanceof HostFailure ? cause : undefined;
};

function hostListClient(selector: HostSelector): new (config?: pg.ClientConfig) => pg.Client {
  const { hosts, targetSessionAttrs } = selector.list;
  return class HostListClient extends pg.Client {
    private readonly hostIndex: number;

    constructor(config: pg.ClientConfig = {}) {
      const index = selector.first();
      super({ ...config, connectionString: hosts[index]!.connectionString });
      this.hostIndex = index;
    }

    override connect(): Promise<pg.Client>;
    override connect(callback: (err: Error | null, client?: pg.Client) => void): void;
    override connect(
      callback?: (err: Error | null, client?: pg.Client) => void,
    ): Promise<pg.Client> | undefined {
      const connected = this.connectChecked();
      if (!callback) return connected;
      connected.then(
        () => callback(null, this),
        (error: Error) => callback(error),
      );
      return undefined;
    }

    private async connectChecked(): Promise<pg.Client> {
      // pg-pool listens for errors only once connect() returns; a server that dies while
      // its session is being checked would otherwise emit 'error' to nobody and end the process.
      const unheard = () => {};
      this.on('error', unheard);
      try {
        return await this.connectAndCheck();
      } finally {
        this.off('error', unheard);
      }
    }

    private async connectAndCheck(): Promise<pg.Client> {
      const where = selector.describe(this.hostIndex);
      try {
        await super.connect();
      } catch (error) {
        if (!triesNextHost(error)) throw error;
        selector.failed(this.hostIndex);
        throw new HostFailure(where, (error as Error).message, { cause: error });
      }
      let mismatch: string | undefined;
      try {
        mismatch = await sessionMismatch(this, targetSessionAttrs);
      } catch (error) {
        mismatch = (error as Error).message;
      }
      if (mismatch !== undefined) {
        selector.failed(this.hostIndex);
        await this.end().catch(() => undefined);
        throw new HostFailure(where, mismatch);
      }
      selector.succeeded(this.hostIndex);
      return this;
    }
  };
}

type ConnectCallback = (
  err: Error | undefined,
  client: pg.PoolClient | undefined,
  done: (release?: unknown) => void,
) => void;

/**
 * A `pg.Pool` whose new connections go to a suitable host of a libpq-style host list.
 * Idle connections are handed out as usual; one that turns out to be on a host that
 * stopped being primary fails its statement and is destroyed, not returned
 * (dropBrokenConnections.ts), so the next checkout opens a new one.
 */
export class HostListPool extends pg.Pool {
  private readonly selector: HostSelector;

  constructor(list: HostList, config: pg.PoolConfig) {
    const selector = new HostSelector(list);
    super({ ...config, Client: hostListClient(selector) as unknown as new () => pg.ClientBase });
    this.selector = selector;
  }

  override connect(): Promise<pg.PoolClient>;
  override connect(callback: ConnectCallback): void;
  override connect(callback?: ConnectCallback): Promise<pg.PoolClient> | undefined {
    const connected = this.connectToSuitableHost();
    if (!callback) return connected;
    connected.then(
      (client) => callback(undefined, client, (release?: unknown) => client.release(release as Error)),
      (error: Error) => callback(error, undefined, () => {}),
    );
    return undefined;
  }

  private async connectToSuitableHost(): Promise<pg.PoolClient> {
    const failures: string[] = [];
    for (let tried = 0; tried < this.selector.list.hosts.length; tried++) {
      try {
        return await super.connect();
      } catch (error) {
        const failure = hostFailureOf(error);
        if (!failure) throw error;
        failures.push(failure.message);
      }
    }
    throw new NoSuitableHostError(this.selector.list.targetSessionAttrs, failures);
  }
}

/**
 * A pool for `connectionString`: a plain `pg.Pool` for an ordinary single-host URL, a
 * `HostListPool` for a host list or a URL with `target_session_attrs`.
 */
export function newPool(config: pg.PoolConfig & { connectionString: string }): pg.Pool {
  const list = parseHostList(config.connectionString);
  return list.plain ? new pg.Pool(config) : new HostListPool(list, config);
}
