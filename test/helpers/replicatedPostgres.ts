// A PostgreSQL primary with a streaming standby, for the failover tests, the chaos
// harness (--replica) and the failover bench: PostgreSQL 15 from the Debian packages
// (/usr/lib/postgresql/15/bin, or ONEJOB_PG_BIN), in a temp folder of its own, on loopback
// ports picked free. The two nodes are slots `node_a` and `node_b` that keep their ports
// for the whole run, so one host list (`host:pa,host:pb`) names the cluster whatever node
// is primary. Each node names the other in `synchronous_standby_names`; with
// `synchronous_commit = on` (the default) a commit returns only once the standby has
// flushed it.
//
// A failover comes in steps or at once: `killPrimary()` SIGKILLs the primary's postmaster
// and every process it forked, as a host that dies; `promoteStandby()` makes the standby
// the primary; `rejoinStandby()` builds a new standby from it with pg_basebackup in the
// dead node's slot, so the next failover can come. `failover()` does all three.
//
// The servers are children of this process, killed when it exits. PostgreSQL refuses to
// run as root, and CI runs as root: every server and tool then runs as the `postgres` OS
// user, which owns the folder. Plain Node and pg, no test framework.
import { type ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import { appendFileSync, chownSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { childPids } from './childPids.js';
import { freePort } from './ports.js';
import { sleep, until } from './until.js';

const run = promisify(execFile);

const BIN = process.env.ONEJOB_PG_BIN ?? '/usr/lib/postgresql/15/bin';

export interface ReplicatedPostgresOptions {
  /** Database created for the application (default `onejob`). */
  database?: string;
  /**
   * `on` (default): a commit waits until the standby has flushed it. `local` (or `off`):
   * it does not, so the last commits acknowledged before a crash may be missing on the
   * standby (the asynchronous window).
   */
  synchronousCommit?: 'on' | 'local' | 'off' | 'remote_write' | 'remote_apply';
  /** Told what a failover did, as it happens. */
  log?: (line: string) => void;
}

export interface PostgresNode {
  /** `node_a` or `node_b`: the node's application_name as a standby, named in synchronous_standby_names. */
  name: string;
  port: number;
  dataDir: string;
  /** This node's server, while it runs. */
  server: ChildProcess | undefined;
}

/** uid and gid of the `postgres` user when this process is root; undefined otherwise. */
function postgresUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
  return { uid, gid };
}

const servers = new Set<ChildProcess>();
// A run that ends any way at all leaves no server behind.
process.on('exit', () => {
  for (const s of servers) killServer(s);
});

const signal = (pid: number, s: NodeJS.Signals) => {
  try {
    process.kill(pid, s);
  } catch {
    // Already gone.
  }
};

const running = (server: ChildProcess | undefined): server is ChildProcess =>
  server !== undefined && server.exitCode === null && server.signalCode === null;

/**
 * SIGKILL of a server as a whole, as when its host dies. Killing its process group is not
 * enough: every backend PostgreSQL forks calls setsid() and leads a group of its own, and a
 * backend whose postmaster is gone goes on answering its session for a while. So the
 * postmaster is stopped first (it forks nothing more), then its children are stopped too
 * (listing them takes a while, during which they would go on committing), then all are killed.
 */
function killServer(child: ChildProcess) {
  const pid = child.pid;
  if (pid === undefined || !running(child)) return;
  signal(pid, 'SIGSTOP');
  const children = childPids(pid);
  for (const c of children) signal(c, 'SIGSTOP');
  for (const c of children) signal(c, 'SIGKILL');
  signal(pid, 'SIGKILL');
}

/**
 * Starts a primary and a synchronous streaming standby; resolves once the standby streams.
 *
 * @example
 * ```ts
 * const cluster = await startReplicatedPostgres();
 * process.env.DATABASE_URL = cluster.hostListUrl();
 * await cluster.killPrimary();
 * await cluster.promoteStandby();
 * await cluster.close();
 * ```
 */
export async function startReplicatedPostgres(
  options: ReplicatedPostgresOptions = {},
): Promise<ReplicatedPostgres> {
  const root = mkdtempSync(join(tmpdir(), 'onejob-replicated-'));
  const cluster = new ReplicatedPostgres(root, [await freePort(), await freePort()], options);
  try {
    await cluster.init();
    return cluster;
  } catch (error) {
    await cluster.close();
    throw error;
  }
}

export class ReplicatedPostgres {
  readonly nodes: [PostgresNode, PostgresNode];
  primary: PostgresNode;
  standby: PostgresNode;
  /** Promotions so far; data folders are numbered by it so a rebuilt node never reuses one. */
  failovers = 0;
  readonly database: string;
  private readonly user = postgresUser();
  private readonly log: (line: string) => void;

  constructor(
    readonly root: string,
    ports: [number, number],
    private readonly options: ReplicatedPostgresOptions,
  ) {
    this.nodes = [
      { name: 'node_a', port: ports[0], dataDir: join(root, 'node_a-0'), server: undefined },
      { name: 'node_b', port: ports[1], dataDir: join(root, 'node_b-0'), server: undefined },
    ];
    this.primary = this.nodes[0];
    this.standby = this.nodes[1];
    this.database = options.database ?? 'onejob';
    this.log = options.log ?? (() => undefined);
    if (this.user) chownSync(root, this.user.uid, this.user.gid);
  }

  /** The first primary, its standby, and the application's database. */
  async init(): Promise<void> {
    await this.initPrimary(this.primary);
    await this.buildStandby(this.standby, this.primary);
    await this.query(this.nodeUrl(this.primary, 'postgres'), `CREATE DATABASE ${this.database}`);
  }

  /** The host list onejob is given: both slots, in slot order, with `target_session_attrs`. */
  hostListUrl(targetSessionAttrs = 'read-write'): string {
    const [a, b] = this.nodes;
    return `postgres://postgres@127.0.0.1:${a.port},127.0.0.1:${b.port}/${this.database}?target_session_attrs=${targetSessionAttrs}`;
  }

  /** A single-host URL of one node. */
  nodeUrl(node: PostgresNode, database = this.database): string {
    return `postgres://postgres@127.0.0.1:${node.port}/${database}`;
  }

  /** The current primary alone (after a promotion, the promoted node). */
  primaryUrl(database?: string): string {
    return this.nodeUrl(this.primary, database);
  }

  /** The current standby alone (after a promotion, the dead primary's slot until rejoinStandby). */
  standbyUrl(database?: string): string {
    return this.nodeUrl(this.standby, database);
  }

  get primaryPort(): number {
    return this.primary.port;
  }

  get standbyPort(): number {
    return this.standby.port;
  }

  /** Runs SQL on a single-host URL, in a connection of its own, and returns the rows. */
  async query<R extends pg.QueryResultRow = pg.QueryResultRow>(
    url: string,
    sql: string,
    values?: unknown[],
  ): Promise<R[]> {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
    client.on('error', () => undefined);
    await client.connect();
    try {
      return (await client.query<R>(sql, values)).rows;
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  private async tool(name: string, args: string[]): Promise<void> {
    await run(join(BIN, name), args, {
      cwd: this.root,
      ...(this.user ? { uid: this.user.uid, gid: this.user.gid } : {}),
      env: { PATH: process.env.PATH ?? '', LC_ALL: 'C.UTF-8' },
    });
  }

  private async initPrimary(node: PostgresNode): Promise<void> {
    await this.tool('initdb', [
      '-D',
      node.dataDir,
      '-U',
      'postgres',
      '--auth=trust',
      '--no-sync',
      '-E',
      'UTF8',
    ]);
    // Both nodes inherit this file through pg_basebackup; what differs per node goes in
    // postgresql.auto.conf (configureNode), which is read after it.
    appendFileSync(
      join(node.dataDir, 'postgresql.conf'),
      [
        '',
        "listen_addresses = '127.0.0.1'",
        'max_connections = 300',
        'wal_level = replica',
        'max_wal_senders = 10',
        "wal_keep_size = '512MB'",
        'hot_standby = on',
        `synchronous_commit = ${this.options.synchronousCommit ?? 'on'}`,
        // The harness kills processes, never the machine: what a killed server wrote is in
        // the page cache either way, so fsync only costs time on a shared machine.
        'fsync = off',
        "shared_buffers = '64MB'",
        '',
      ].join('\n'),
    );
    this.configureNode(node, undefined);
    await this.startNode(node);
  }

  /** Per-node settings: the standby this node waits for when primary, and whom it follows when standby. */
  private configureNode(node: PostgresNode, following: PostgresNode | undefined): void {
    const other = this.nodes.find((n) => n !== node)!;
    const lines = [
      // Named explicitly: a commit on this node, once primary, waits for that standby.
      `synchronous_standby_names = '${other.name}'`,
      ...(following
        ? [
            `primary_conninfo = 'host=127.0.0.1 port=${following.port} user=postgres application_name=${node.name}'`,
          ]
        : []),
      '',
    ];
    appendFileSync(join(node.dataDir, 'postgresql.auto.conf'), lines.join('\n'));
    if (following) writeFileSync(join(node.dataDir, 'standby.signal'), '');
    if (this.user) {
      for (const f of ['postgresql.auto.conf', ...(following ? ['standby.signal'] : [])])
        chownSync(join(node.dataDir, f), this.user.uid, this.user.gid);
    }
  }

  private async startNode(node: PostgresNode): Promise<void> {
    const child = spawn(
      join(BIN, 'postgres'),
      ['-D', node.dataDir, '-c', `port=${node.port}`, '-c', `unix_socket_directories=${this.root}`],
      {
        cwd: this.root,
        detached: true,
        stdio: ['ignore', 'ignore', 'pipe'],
        ...(this.user ? { uid: this.user.uid, gid: this.user.gid } : {}),
        env: { PATH: process.env.PATH ?? '', LC_ALL: 'C.UTF-8' },
      },
    );
    let tail = '';
    child.stderr?.on('data', (c: Buffer) => {
      tail = (tail + c.toString('utf8')).slice(-4_000);
    });
    child.on('exit', () => servers.delete(child));
    servers.add(child);
    node.server = child;
    await until(
      `${node.name} on port ${node.port} to accept connections`,
      async () => {
        if (!running(child)) throw new Error(`${node.name} exited: ${tail.slice(-1_000)}`);
        await this.query(this.nodeUrl(node, 'postgres'), 'SELECT 1');
        return true;
      },
      120_000,
      { everyMs: 250, retryErrors: true },
    );
  }

  /** A fresh standby of `from` in `node`'s slot, streaming and named as synchronous before it returns. */
  private async buildStandby(node: PostgresNode, from: PostgresNode): Promise<void> {
    if (existsSync(node.dataDir)) rmSync(node.dataDir, { recursive: true, force: true });
    node.dataDir = join(this.root, `${node.name}-${this.failovers}`);
    await this.tool('pg_basebackup', [
      '-h',
      '127.0.0.1',
      '-p',
      String(from.port),
      '-U',
      'postgres',
      '-D',
      node.dataDir,
      '-X',
      'stream',
      '--checkpoint=fast',
      '--no-sync',
    ]);
    this.configureNode(node, from);
    await this.startNode(node);
    // The primary names this standby again (a promotion cleared the name: see promoteStandby).
    await this.query(
      this.nodeUrl(from, 'postgres'),
      `ALTER SYSTEM SET synchronous_standby_names = '${node.name}'`,
    );
    await this.query(this.nodeUrl(from, 'postgres'), 'SELECT pg_reload_conf()');
    await until(
      `${node.name} to stream synchronously from ${from.name}`,
      async () => {
        const rows = await this.query<{ sync_state: string }>(
          this.nodeUrl(from, 'postgres'),
          'SELECT sync_state FROM pg_stat_replication WHERE application_name = $1',
          [node.name],
        );
        return rows[0]?.sync_state === 'sync';
      },
      120_000,
      { everyMs: 250, retryErrors: true },
    );
  }

  /**
   * Holds the primary's WAL sender for the standby (SIGSTOP) for `ms`: the standby falls
   * behind, as one does under load or across a slow link. With synchronous commit, every
   * commit meanwhile waits; with asynchronous, commits are acknowledged that only the
   * primary has. Returns the stopped process, which dies stopped with the primary.
   */
  private async holdWalSender(ms: number): Promise<number | undefined> {
    if (ms <= 0) return undefined;
    const [sender] = await this.query<{ pid: number }>(
      this.primaryUrl('postgres'),
      'SELECT pid FROM pg_stat_replication WHERE application_name = $1',
      [this.standby.name],
    );
    if (sender === undefined) return undefined;
    process.kill(sender.pid, 'SIGSTOP');
    await sleep(ms);
    return sender.pid;
  }

  /** SIGKILLs the primary's postmaster and every process it forked at once (killServer); its sockets close. */
  async killPrimary(): Promise<void> {
    const dead = this.primary;
    if (dead.server) killServer(dead.server);
    await until(`${dead.name} to die`, async () => !running(dead.server), 10_000, {
      everyMs: 50,
      retryErrors: true,
    });
    dead.server = undefined;
  }

  /**
   * Promotes the standby, waits until it accepts writes, and makes it the primary (the dead
   * one its standby slot). Until rejoinStandby, its commits wait for no standby.
   */
  async promoteStandby(): Promise<void> {
    const heir = this.standby;
    // pg_promote waits (up to 60 s) until the standby has left recovery.
    const [row] = await this.query<{ promoted: boolean }>(
      this.nodeUrl(heir, 'postgres'),
      'SELECT pg_promote(true, 60) AS promoted',
    );
    if (!row?.promoted) throw new Error(`${heir.name} did not finish its promotion within 60 s`);
    // Its synchronous standby is the dead node: until rejoinStandby builds a new one, commits
    // must not wait for it, or the promoted primary would take no write at all.
    await this.query(this.nodeUrl(heir, 'postgres'), "ALTER SYSTEM SET synchronous_standby_names = ''");
    await this.query(this.nodeUrl(heir, 'postgres'), 'SELECT pg_reload_conf()');
    this.standby = this.primary;
    this.primary = heir;
    this.failovers++;
  }

  /** After a promotion: a fresh synchronous standby of the new primary in the dead node's slot. */
  async rejoinStandby(): Promise<void> {
    if (running(this.standby.server))
      throw new Error('rejoinStandby: the standby is still running; kill the primary and promote first');
    await this.buildStandby(this.standby, this.primary);
  }

  /**
   * Lets the standby fall `lagMs` behind (holdWalSender), kills the primary
   * (killPrimary), waits `downMs`, promotes the standby and rejoins the dead node as the
   * new standby. Returns what happened, starting with `promoted`.
   */
  async failover(downMs: number, lagMs = 0): Promise<string> {
    const dead = this.primary;
    const heir = this.standby;
    // A standby whose rebuild failed cannot take over: say so rather than kill the only server.
    if (!running(heir.server)) return `skipped: no standby runs (${heir.name} was not rebuilt)`;
    const held = await this.holdWalSender(lagMs).catch(() => undefined);
    const killedAt = Date.now();
    await this.killPrimary();
    await sleep(downMs);
    await this.promoteStandby();
    const promotedAfter = Date.now() - killedAt;
    this.log(`  ${heir.name} (port ${heir.port}) promoted ${promotedAfter} ms after ${dead.name} was killed`);
    const lag = held !== undefined ? ` (its WAL sender held ${lagMs} ms before)` : '';
    const promoted = `promoted ${heir.name} (port ${heir.port}) ${promotedAfter} ms after killing ${dead.name}${lag}`;
    const rebuildStart = Date.now();
    try {
      await this.rejoinStandby();
    } catch (error) {
      // The failover happened; only the next one is impossible (it will say so).
      if (dead.server) killServer(dead.server);
      return `${promoted}; building a new standby failed: ${(error as Error).message.slice(0, 300)}`;
    }
    return `${promoted}; new standby ${dead.name} built from it and streaming in ${Math.round((Date.now() - rebuildStart) / 100) / 10} s`;
  }

  /** Stops the primary (fast shutdown), waits `outageMs`, starts it again; the standby reconnects. */
  async restartPrimary(outageMs: number): Promise<void> {
    const node = this.primary;
    const server = node.server;
    if (running(server) && server.pid !== undefined) {
      const exited = new Promise<void>((r) => server.once('exit', () => r()));
      // SIGINT to the postmaster alone: a fast shutdown, as `pg_ctl stop -m fast` sends.
      process.kill(server.pid, 'SIGINT');
      await exited;
    }
    await sleep(outageMs);
    await this.startNode(node);
  }

  /** Stops both servers (immediate shutdown) and removes the folder. */
  async close(): Promise<void> {
    for (const node of this.nodes) {
      const server = node.server;
      if (!running(server)) continue;
      const exited = new Promise<void>((r) => server.once('exit', () => r()));
      // Immediate shutdown (SIGQUIT to the postmaster): nothing is kept after the run.
      if (server.pid !== undefined) process.kill(server.pid, 'SIGQUIT');
      await Promise.race([exited, sleep(10_000)]);
      killServer(server);
    }
    rmSync(this.root, { recursive: true, force: true });
  }
}
