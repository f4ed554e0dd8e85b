// A PostgreSQL primary with a synchronous streaming standby, from the Debian packages
// (PostgreSQL 15 in /usr/lib/postgresql/15/bin, or ONEJOB_PG_BIN), in a temp folder of its own
// and on ports picked free. The two nodes are slots `a` and `b` that keep their ports for
// the whole run, so one host list (`host:pa,host:pb`) names the cluster whatever node
// is primary. `failover()` kills the primary like a machine dying (SIGKILL of the
// postmaster and every process it forked), promotes the standby, and builds a new standby from
// the new primary with pg_basebackup in the dead node's slot.
//
// PostgreSQL refuses to run as root, and CI runs as root: every server and tool then runs
// as the `postgres` OS user, which owns the folder.
import { type ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import { appendFileSync, chownSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from '../../test/helpers/ports.js';
import { sleep, until } from '../../test/helpers/until.js';
import { childPids } from './stallPostgres.js';

const run = promisify(execFile);

export interface ReplicatedPostgresOptions {
  /** Database created for the application (default `onejob`). */
  database?: string;
  /** `on` (default): a commit waits for the standby; `local`: it does not (the async window). */
  synchronousCommit?: 'on' | 'local' | 'off' | 'remote_write' | 'remote_apply';
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

// The same variable as the failover test's cluster (test/helpers/replicatedPostgres.ts).
const BIN = process.env.ONEJOB_PG_BIN ?? '/usr/lib/postgresql/15/bin';

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

/**
 * SIGKILL of a server as a whole, as when its host dies. Killing its process group is not
 * enough: every backend PostgreSQL forks calls setsid() and leads a group of its own, and a
 * backend whose postmaster is gone goes on answering its session for a while. So the
 * postmaster is stopped first (it forks nothing more), then its children and it are killed.
 */
function killServer(child: ChildProcess) {
  const pid = child.pid;
  if (pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  signal(pid, 'SIGSTOP');
  for (const c of childPids(pid)) signal(c, 'SIGKILL');
  signal(pid, 'SIGKILL');
}

export class ReplicatedPostgres {
  readonly nodes: [PostgresNode, PostgresNode];
  primary: PostgresNode;
  standby: PostgresNode;
  /** Failovers so far; data folders are numbered by it so a rebuilt node never reuses one. */
  failovers = 0;
  private readonly user = postgresUser();
  private readonly database: string;
  private readonly log: (line: string) => void;

  private constructor(
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
  }

  static async start(options: ReplicatedPostgresOptions = {}): Promise<ReplicatedPostgres> {
    const root = mkdtempSync(join(tmpdir(), 'onejob-replicated-'));
    const cluster = new ReplicatedPostgres(root, [await freePort(), await freePort()], options);
    if (cluster.user) chownSync(root, cluster.user.uid, cluster.user.gid);
    try {
      await cluster.initPrimary(cluster.primary);
      await cluster.buildStandby(cluster.standby, cluster.primary);
      const admin = new pg.Client({ connectionString: cluster.nodeUrl(cluster.primary, 'postgres') });
      await admin.connect();
      try {
        await admin.query(`CREATE DATABASE ${cluster.database}`);
      } finally {
        await admin.end();
      }
      return cluster;
    } catch (error) {
      await cluster.close();
      throw error;
    }
  }

  /** The host list onejob is given: both slots, read-write sessions only. */
  get url(): string {
    const [a, b] = this.nodes;
    return `postgres://postgres@127.0.0.1:${a.port},127.0.0.1:${b.port}/${this.database}?target_session_attrs=read-write`;
  }

  /** A single-host URL of one node (the harness's own pools follow `primary` with it). */
  nodeUrl(node: PostgresNode, database = this.database): string {
    return `postgres://postgres@127.0.0.1:${node.port}/${database}`;
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
        if (child.exitCode !== null || child.signalCode !== null)
          throw new Error(`${node.name} exited: ${tail.slice(-1_000)}`);
        const c = new pg.Client({
          connectionString: this.nodeUrl(node, 'postgres'),
          connectionTimeoutMillis: 2_000,
        });
        try {
          await c.connect();
          await c.query('SELECT 1');
          return true;
        } finally {
          await c.end().catch(() => undefined);
        }
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
    await until(
      `${node.name} to stream synchronously from ${from.name}`,
      async () => this.syncState(from, node.name).then((s) => s === 'sync'),
      120_000,
      { everyMs: 250, retryErrors: true },
    );
  }

  private async syncState(primary: PostgresNode, standbyName: string): Promise<string | undefined> {
    const c = new pg.Client({
      connectionString: this.nodeUrl(primary, 'postgres'),
      connectionTimeoutMillis: 2_000,
    });
    try {
      await c.connect();
      const { rows } = await c.query<{ sync_state: string }>(
        'SELECT sync_state FROM pg_stat_replication WHERE application_name = $1',
        [standbyName],
      );
      return rows[0]?.sync_state;
    } finally {
      await c.end().catch(() => undefined);
    }
  }

  /**
   * Holds the primary's WAL sender for the standby (SIGSTOP) for `ms`: the standby falls
   * behind, as one does under load or across a slow link. With synchronous commit, every
   * commit meanwhile waits; with asynchronous, commits are acknowledged that only the
   * primary has. Returns the stopped process, to be continued (or killed with the primary).
   */
  private async holdWalSender(ms: number): Promise<number | undefined> {
    if (ms <= 0) return undefined;
    const c = new pg.Client({
      connectionString: this.nodeUrl(this.primary, 'postgres'),
      connectionTimeoutMillis: 2_000,
    });
    await c.connect();
    let pid: number | undefined;
    try {
      const { rows } = await c.query<{ pid: number }>(
        'SELECT pid FROM pg_stat_replication WHERE application_name = $1',
        [this.standby.name],
      );
      pid = rows[0]?.pid;
    } finally {
      await c.end().catch(() => undefined);
    }
    if (pid === undefined) return undefined;
    process.kill(pid, 'SIGSTOP');
    await sleep(ms);
    return pid;
  }

  /**
   * Lets the standby fall `lagMs` behind (holdWalSender), then SIGKILLs the primary with
   * every process it forked (killServer, as if the machine died), waits `downMs`,
   * promotes the standby, and builds a new standby in the dead node's slot from the new
   * primary. Returns what happened, starting with `promoted`.
   */
  async failover(downMs: number, lagMs = 0): Promise<string> {
    const dead = this.primary;
    const heir = this.standby;
    // A standby whose rebuild failed cannot take over: say so rather than kill the only server.
    if (!heir.server || heir.server.exitCode !== null || heir.server.signalCode !== null)
      return `skipped: no standby runs (${heir.name} was not rebuilt)`;
    const held = await this.holdWalSender(lagMs).catch(() => undefined);
    const killedAt = Date.now();
    // The held WAL sender is one of its children: it dies stopped, sending nothing more.
    if (dead.server) killServer(dead.server);
    await until(
      `${dead.name} to die`,
      async () => dead.server?.exitCode !== null || dead.server.signalCode !== null,
      10_000,
      { everyMs: 50, retryErrors: true },
    );
    dead.server = undefined;
    await sleep(downMs);
    const c = new pg.Client({
      connectionString: this.nodeUrl(heir, 'postgres'),
      connectionTimeoutMillis: 5_000,
    });
    await c.connect();
    try {
      // pg_promote waits (up to 60 s) until the standby has left recovery.
      const { rows } = await c.query<{ promoted: boolean }>('SELECT pg_promote(true, 60) AS promoted');
      if (!rows[0]?.promoted) throw new Error(`${heir.name} did not finish its promotion within 60 s`);
    } finally {
      await c.end().catch(() => undefined);
    }
    const promotedAfter = Date.now() - killedAt;
    this.primary = heir;
    this.standby = dead;
    this.failovers++;
    this.log(`  ${heir.name} (port ${heir.port}) promoted ${promotedAfter} ms after ${dead.name} was killed`);
    const lag = held !== undefined ? ` (its WAL sender held ${lagMs} ms before)` : '';
    const promoted = `promoted ${heir.name} (port ${heir.port}) ${promotedAfter} ms after killing ${dead.name}${lag}`;
    const rebuildStart = Date.now();
    try {
      await this.buildStandby(dead, heir);
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
    if (server?.pid !== undefined && server.exitCode === null && server.signalCode === null) {
      const exited = new Promise<void>((r) => server.once('exit', () => r()));
      // SIGINT to the postmaster alone: a fast shutdown, as `pg_ctl stop -m fast` sends.
      process.kill(server.pid, 'SIGINT');
      await exited;
    }
    await sleep(outageMs);
    await this.startNode(node);
  }

  async close(): Promise<void> {
    for (const node of this.nodes) {
      const server = node.server;
      if (!server || server.exitCode !== null || server.signalCode !== null) continue;
      const exited = new Promise<void>((r) => server.once('exit', () => r()));
      // Immediate shutdown (SIGQUIT to the postmaster): nothing is kept after the run.
      if (server.pid !== undefined) process.kill(server.pid, 'SIGQUIT');
      await Promise.race([exited, sleep(10_000)]);
      killServer(server);
    }
    rmSync(this.root, { recursive: true, force: true });
  }
}
