// A PostgreSQL primary and a streaming standby of it, in a temp folder of their own and on
// loopback ports picked free: initdb, pg_basebackup -R, and (by default) synchronous
// replication naming the standby. `killPrimary()` SIGKILLs the primary's postmaster and
// every process of it, as a host that dies; `promoteStandby()` runs `pg_ctl promote`.
// Plain Node and pg, no test framework: the chaos harness can use it as well.
// initdb refuses to run as root, so as root the cluster runs as the `postgres` OS user.
import { execFile } from 'node:child_process';
import { chown, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from './ports.js';

export const PG_BIN = process.env.ONEJOB_PG_BIN ?? '/usr/lib/postgresql/15/bin';
/** The standby's name in `synchronous_standby_names` (its walreceiver reports `cluster_name`). */
export const STANDBY_NAME = 'onejob_standby';

export interface ReplicatedPostgresOptions {
  /**
   * Synchronous replication (default): every commit waits until the standby has flushed it
   * (`synchronous_commit = on`, `synchronous_standby_names` naming the standby). False:
   * asynchronous streaming, where the last commits acknowledged before a crash may be missing
   * on the standby.
   */
  synchronous?: boolean;
  /** Database created on the primary (and so on the standby). Default `onejob`. */
  database?: string;
}

export interface ReplicatedPostgres {
  readonly dir: string;
  /** The current primary's port (after `promoteStandby()`, the promoted server's). */
  readonly primaryPort: number;
  /** The current standby's port (after `promoteStandby()`, the dead primary's until `rejoinStandby()`). */
  readonly standbyPort: number;
  readonly database: string;
  /** libpq-style host list naming both servers (in the order they were created), with `target_session_attrs`. */
  hostListUrl(targetSessionAttrs?: string): string;
  /** The current primary alone (single-host URL). */
  primaryUrl(database?: string): string;
  /** The current standby alone (single-host URL). */
  standbyUrl(database?: string): string;
  /** SIGKILLs the primary's postmaster and all its processes at once; its sockets close. */
  killPrimary(): Promise<void>;
  /** Promotes the standby, waits until it accepts writes, and makes it the primary. */
  promoteStandby(): Promise<void>;
  /**
   * After a failover: a fresh standby of the new primary (pg_basebackup) in the dead
   * server's folder and port, synchronous when the cluster is, so the next failover can come.
   */
  rejoinStandby(): Promise<void>;
  /** Runs SQL on a single-host URL and returns the rows. */
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(
    url: string,
    sql: string,
    values?: unknown[],
  ): Promise<R[]>;
  /** Stops both servers (immediate) and removes the folder. */
  stop(): Promise<void>;
}

interface OsUser {
  uid: number;
  gid: number;
}

/** The `postgres` OS user when running as root (initdb refuses root), else nobody to switch to. */
async function clusterUser(): Promise<OsUser | undefined> {
  if (userInfo().uid !== 0) return undefined;
  const passwd = await readFile('/etc/passwd', 'utf8');
  const line = passwd.split('\n').find((l) => l.startsWith('postgres:'));
  if (!line) throw new Error('running as root and there is no "postgres" OS user to run PostgreSQL as');
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

function run(bin: string, args: string[], user: OsUser | undefined, cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      join(PG_BIN, bin),
      args,
      { cwd, ...(user ?? {}), env: { ...process.env, LC_ALL: 'C', PGUSER: 'postgres' }, timeout: 60_000 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`${bin} ${args.join(' ')} failed: ${error.message}\n${stderr}`));
        else resolve(stdout);
      },
    );
  });
}

async function poll<T>(
  what: string,
  fn: () => Promise<T | undefined | false>,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await fn();
      if (value) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${String(last ?? '')}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Every process whose parent is `pid` (a postmaster's backends, walsender, checkpointer...). */
async function childrenOf(pid: number): Promise<number[]> {
  const children: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    // The parent pid is the second field after the command name, which is in parentheses.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[1]) === pid) children.push(Number(entry));
  }
  return children;
}

/**
 * Starts a primary and a streaming standby. Needs PostgreSQL's server binaries
 * (`ONEJOB_PG_BIN`, default Debian's PostgreSQL 15).
 *
 * @example
 * ```ts
 * const cluster = await startReplicatedPostgres();
 * process.env.DATABASE_URL = cluster.hostListUrl();
 * await cluster.killPrimary();
 * await cluster.promoteStandby();
 * await cluster.stop();
 * ```
 */
export async function startReplicatedPostgres(
  options: ReplicatedPostgresOptions = {},
): Promise<ReplicatedPostgres> {
  const synchronous = options.synchronous ?? true;
  const database = options.database ?? 'onejob';
  const user = await clusterUser();
  const dir = await mkdtemp(join(tmpdir(), 'onejob-replicated-'));
  if (user) await chown(dir, user.uid, user.gid);
  // Two servers whose roles swap at each promotion.
  const nodes = [
    { dir: join(dir, 'a'), port: await freePort(), running: false },
    { dir: join(dir, 'b'), port: await freePort(), running: false },
  ];
  let primary = 0;
  const standby = () => 1 - primary;
  const url = (port: number, db = database) => `postgres://postgres@127.0.0.1:${port}/${db}`;
  const pgctl = (args: string[]) => run('pg_ctl', args, user, dir);

  const query = async <R extends pg.QueryResultRow>(
    connectionString: string,
    sql: string,
    values?: unknown[],
  ) => {
    const client = new pg.Client({ connectionString, connectionTimeoutMillis: 5_000 });
    client.on('error', () => {});
    await client.connect();
    try {
      return (await client.query<R>(sql, values)).rows;
    } finally {
      await client.end().catch(() => undefined);
    }
  };
  const startNode = async (index: number) => {
    const node = nodes[index]!;
    try {
      await pgctl(['start', '-D', node.dir, '-l', `${node.dir}.log`, '-w']);
    } catch (error) {
      // pg_ctl says only that it failed; the server's own log says why.
      const log = await readFile(`${node.dir}.log`, 'utf8').catch(() => '(no log)');
      throw new Error(`${(error as Error).message}\nserver log:\n${log.slice(-3000)}`);
    }
    node.running = true;
  };
  const stop = async () => {
    for (const node of nodes)
      if (node.running) await pgctl(['stop', '-D', node.dir, '-m', 'immediate', '-w']).catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  };

  /** A standby of the current primary in the other node's (empty) folder, streaming. */
  const makeStandby = async () => {
    const node = nodes[standby()]!;
    const from = nodes[primary]!;
    await rm(node.dir, { recursive: true, force: true });
    await run(
      'pg_basebackup',
      ['-h', '127.0.0.1', '-p', String(from.port), '-D', node.dir, '-R', '-X', 'stream', '-c', 'fast'],
      user,
      dir,
    );
    // pg_basebackup -R wrote primary_conninfo here; the standby gets its own port and name.
    // Promoted, it must not wait for a synchronous standby of its own that does not exist.
    const auto = join(node.dir, 'postgresql.auto.conf');
    await writeFile(
      auto,
      `${await readFile(auto, 'utf8')}\nport = ${node.port}\ncluster_name = '${STANDBY_NAME}'\nsynchronous_standby_names = ''\n`,
    );
    if (user) await chown(auto, user.uid, user.gid);
    await startNode(standby());
    if (synchronous) {
      await query(url(from.port), `ALTER SYSTEM SET synchronous_standby_names = '${STANDBY_NAME}'`);
      await query(url(from.port), 'SELECT pg_reload_conf()');
    }
    const wanted = synchronous ? 'sync' : 'async';
    await poll(`the standby streaming (${wanted})`, async () => {
      const rows = await query<{ sync_state: string }>(
        url(from.port),
        'SELECT sync_state FROM pg_stat_replication WHERE application_name = $1',
        [STANDBY_NAME],
      );
      return rows[0]?.sync_state === wanted;
    });
  };

  try {
    const first = nodes[primary]!;
    await run(
      'initdb',
      ['-D', first.dir, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-instructions'],
      user,
      dir,
    );
    const common = [
      "listen_addresses = '127.0.0.1'",
      `unix_socket_directories = '${dir}'`,
      'wal_level = replica',
      'max_wal_senders = 5',
      'max_connections = 60',
      'shared_buffers = 16MB',
      'synchronous_commit = on',
      'wal_keep_size = 64MB',
    ];
    await writeFile(
      join(first.dir, 'postgresql.auto.conf'),
      [...common, `port = ${first.port}`, ''].join('\n'),
    );
    await startNode(primary);
    await query(url(first.port, 'postgres'), `CREATE DATABASE ${database}`);
    await makeStandby();
  } catch (error) {
    await stop();
    throw error;
  }

  return {
    dir,
    get primaryPort() {
      return nodes[primary]!.port;
    },
    get standbyPort() {
      return nodes[standby()]!.port;
    },
    database,
    hostListUrl: (attrs = 'read-write') =>
      `postgres://postgres@127.0.0.1:${nodes[0]!.port},127.0.0.1:${nodes[1]!.port}/${database}?target_session_attrs=${attrs}`,
    primaryUrl: (db) => url(nodes[primary]!.port, db),
    standbyUrl: (db) => url(nodes[standby()]!.port, db),
    query,
    async killPrimary() {
      const node = nodes[primary]!;
      const pid = Number((await readFile(join(node.dir, 'postmaster.pid'), 'utf8')).split('\n')[0]);
      // The whole server at once, as when its host dies: a postmaster killed alone leaves
      // backends that go on answering (and committing) for a while. Everything is frozen
      // first (SIGSTOP takes effect at once; listing processes takes a while, during which
      // backends would go on committing), then killed. A backend forked just before the
      // postmaster froze is found by the second listing.
      const freeze = (pids: number[]) => {
        for (const p of pids) {
          try {
            process.kill(p, 'SIGSTOP');
          } catch {
            /* gone already */
          }
        }
      };
      const listed = await childrenOf(pid);
      freeze([pid, ...listed]);
      const late = (await childrenOf(pid)).filter((p) => !listed.includes(p));
      freeze(late);
      const victims = [...listed, ...late, pid];
      for (const p of victims) {
        try {
          process.kill(p, 'SIGKILL');
        } catch {
          /* gone already */
        }
      }
      // Gone, or a zombie its parent has not reaped yet (its sockets are closed either way).
      await poll('the primary to be gone', async () => {
        for (const p of victims) {
          const stat = await readFile(`/proc/${p}/stat`, 'utf8').catch(() => '');
          if (stat && stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z') return false;
        }
        return true;
      });
      // A host that dies takes its /tmp with it. Here the dead server's socket lock file
      // stays in the shared socket folder, naming a postmaster that can linger as a zombie
      // until init reaps it; a server started later on the same port (the rebuilt standby)
      // then refuses to start: "lock file ... already exists".
      await rm(join(dir, `.s.PGSQL.${node.port}`), { force: true });
      await rm(join(dir, `.s.PGSQL.${node.port}.lock`), { force: true });
      node.running = false;
    },
    async promoteStandby() {
      const node = nodes[standby()]!;
      await pgctl(['promote', '-D', node.dir, '-w']);
      await poll('the promoted standby to accept writes', async () => {
        const rows = await query<{ r: boolean }>(url(node.port), 'SELECT pg_is_in_recovery() AS r');
        return rows[0]?.r === false;
      });
      primary = standby();
    },
    async rejoinStandby() {
      const node = nodes[standby()]!;
      if (node.running)
        throw new Error('rejoinStandby: the standby is still running; kill the primary and promote first');
      await makeStandby();
    },
    stop,
  };
}
