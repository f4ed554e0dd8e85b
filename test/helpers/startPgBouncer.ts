// A real PgBouncer (Debian's package) in front of one test database, configured in a
// temporary folder on a free loopback port: the pooler onejob meets in production.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './ports.js';
import { ADMIN_URL } from './testDatabase.js';

export interface PgBouncer {
  /** `postgres://…@127.0.0.1:<port>/<database>` through the pooler. */
  url: string;
  /** The pooler's admin console (`SHOW POOLS`, `SHOW SERVERS`). */
  adminUrl: string;
  stop(): Promise<void>;
}

export interface PgBouncerOptions {
  database: string;
  /** The PostgreSQL server it pools for: a URL whose host, port and user are used. Default: the tests' server. */
  serverUrl?: string;
  poolMode?: 'transaction' | 'session';
  /** Server connections per (database, user): keep it below the client's pool size. */
  poolSize?: number;
}

/** Where the pgbouncer binary is (`PGBOUNCER`, else Debian's path, else PATH), or undefined. */
export function pgBouncerPath(): string | undefined {
  const candidates = [process.env.PGBOUNCER, '/usr/sbin/pgbouncer', '/usr/bin/pgbouncer'];
  for (const path of candidates) if (path && existsSync(path)) return path;
  try {
    return execFileSync('sh', ['-c', 'command -v pgbouncer'], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}

/** Starts PgBouncer for `database`; retries on another port if the picked one was taken meanwhile. */
export async function startPgBouncer(options: PgBouncerOptions): Promise<PgBouncer> {
  const binary = pgBouncerPath();
  if (!binary) throw new Error('pgbouncer is not installed (Debian: apt-get install pgbouncer)');
  const server = new URL(options.serverUrl ?? ADMIN_URL);
  const user = decodeURIComponent(server.username || 'postgres');
  const dir = await mkdtemp(join(tmpdir(), 'onejob-pgbouncer-'));
  // PgBouncer refuses to run as root: as root it switches to the postgres user, which must read the folder.
  await chmod(dir, 0o755);
  await writeFile(join(dir, 'users.txt'), `"${user}" ""\n`, { mode: 0o644 });
  let lastError: unknown;
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = await freePort();
    const ini = [
      '[databases]',
      `${options.database} = host=${server.hostname} port=${server.port || 5432} dbname=${options.database} user=${user}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${join(dir, 'users.txt')}`,
      `admin_users = ${user}`,
      `pool_mode = ${options.poolMode ?? 'transaction'}`,
      `default_pool_size = ${options.poolSize ?? 4}`,
      'max_client_conn = 500',
      'ignore_startup_parameters = extra_float_digits',
      '',
    ].join('\n');
    const file = join(dir, 'pgbouncer.ini');
    await writeFile(file, ini, { mode: 0o644 });
    const args = process.getuid?.() === 0 ? ['-u', 'postgres', file] : [file];
    const child = spawn(binary, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    try {
      await untilUp(child);
    } catch (error) {
      lastError = error;
      child.kill('SIGKILL');
      continue;
    }
    const base = `postgres://${encodeURIComponent(user)}@127.0.0.1:${port}`;
    return {
      url: `${base}/${options.database}`,
      adminUrl: `${base}/pgbouncer`,
      stop: async () => {
        if (child.exitCode === null && child.signalCode === null) {
          const exited = new Promise((resolve) => child.once('exit', resolve));
          child.kill('SIGTERM');
          await exited;
        }
        child.stderr?.destroy();
        await rm(dir, { recursive: true, force: true });
      },
    };
  }
  await rm(dir, { recursive: true, force: true });
  throw lastError;
}

/** Resolves once PgBouncer says it is up; rejects with its log when it exits first. */
function untilUp(child: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    let log = '';
    const onData = (chunk: Buffer) => {
      log += chunk.toString();
      if (log.includes('process up')) {
        child.stderr?.off('data', onData);
        // Keep draining, so a chatty PgBouncer never blocks on a full pipe.
        child.stderr?.resume();
        child.off('exit', onExit);
        resolve();
      }
    };
    const onExit = () => reject(new Error(`pgbouncer exited at start:\n${log}`));
    child.stderr?.on('data', onData);
    child.once('exit', onExit);
  });
}
