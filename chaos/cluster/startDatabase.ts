// The run's database: a fresh database on the local PostgreSQL server, an embedded
// PostgreSQL server the run owns, which it may stop and start again (the restart fault),
// or a primary with a synchronous standby (`--replica`), which it may also fail over.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { type EmbeddedDatabase, startEmbedded } from '../../src/db/startEmbedded.js';
import { startReplicatedPostgres } from '../../test/helpers/replicatedPostgres.js';
import { createServerDatabase } from '../../test/helpers/serverDatabase.js';
import type { DatabaseTarget } from './resilientPool.js';
import { stallPostgres } from './stallPostgres.js';

export const SYSTEM_POSTGRES =
  process.env.CHAOS_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export type DatabaseKind = 'system' | 'embedded' | 'replicated';

export interface ChaosDatabase {
  /** What onejob is given as DATABASE_URL: for a replicated cluster, both hosts. */
  url: string;
  /** Where the harness's own pools connect: `url`, or the current primary of a replicated cluster. */
  harnessTarget: DatabaseTarget;
  kind: DatabaseKind;
  /** Stop and start the server (embedded only). `outageMs` is how long it stays down. */
  restart?(outageMs: number): Promise<void>;
  /** SIGSTOP the server (postmaster and backends) for `ms`, then SIGCONT (embedded only). Resolves to the processes stopped. */
  stall?(ms: number): Promise<number>;
  /**
   * Hold the standby `lagMs` behind, SIGKILL the primary, wait `downMs`, promote the
   * standby, then build a new standby from the new primary (`--replica` only). Resolves
   * to what happened.
   */
  failover?(downMs: number, lagMs: number): Promise<string>;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** Replicated only: `on` (default) or an asynchronous setting, to show what it loses. */
  synchronousCommit?: 'on' | 'local' | 'off';
  log?: (line: string) => void;
}

export async function startDatabase(
  kind: DatabaseKind,
  dir: string,
  options: DatabaseOptions = {},
): Promise<ChaosDatabase> {
  if (kind === 'replicated') {
    const cluster = await startReplicatedPostgres({
      ...(options.synchronousCommit ? { synchronousCommit: options.synchronousCommit } : {}),
      ...(options.log ? { log: options.log } : {}),
    });
    return {
      url: cluster.hostListUrl(),
      harnessTarget: () => cluster.primaryUrl(),
      kind,
      restart: (outageMs) => cluster.restartPrimary(outageMs),
      stall: (ms) => stallPostgres(cluster.primary.dataDir, ms),
      failover: (downMs, lagMs) => cluster.failover(downMs, lagMs),
      close: () => cluster.close(),
    };
  }
  if (kind === 'system') {
    const database = await createServerDatabase(
      SYSTEM_POSTGRES,
      `onejob_chaos_${randomBytes(4).toString('hex')}`,
    );
    return {
      url: database.url,
      harnessTarget: database.url,
      kind,
      close: database.drop,
    };
  }
  const home = join(dir, 'pg-home');
  let server: EmbeddedDatabase = await startEmbedded(home);
  return {
    url: server.connectionString,
    harnessTarget: () => server.connectionString,
    kind,
    async restart(outageMs) {
      await server.stop();
      await new Promise((r) => setTimeout(r, outageMs));
      // The same data directory and, from its state file, the same port.
      server = await startEmbedded(home);
    },
    stall: (ms) => stallPostgres(server.dataDir, ms),
    close: () => server.stop(),
  };
}
