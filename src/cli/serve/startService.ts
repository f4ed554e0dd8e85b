import { join, resolve } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { OnejobConfig } from '../../config/types.js';
import { createOnejob, type Onejob } from '../../createOnejob.js';
import { refuseUndeclaredPooler } from '../../db/detectPooler.js';
import { migrate } from '../../db/migrate.js';
import { migrationUrl } from '../../db/migrationUrl.js';
import { poolerSettings } from '../../db/poolerSettings.js';
import { type EmbeddedDatabase, EmbeddedInUseError, startEmbedded } from '../../db/startEmbedded.js';
import { warnIfAutovacuumOff } from '../../db/warnIfAutovacuumOff.js';
import { loadConfig } from '../../engine/loadConfig.js';
import { BACKGROUND_ROLES, type BackgroundRole } from '../../engine/startRoles.js';
import { ApiKeys, devToken } from '../../http/apiKeys.js';
import { buildServer } from '../../http/buildServer.js';
import { ADMIN_TOKEN_FILE, storedToken } from '../../http/storedToken.js';
import { createLogger, type LogFormat, logFormat } from '../../observability/createLogger.js';
import type { AnyCodeOperation } from '../../operations/defineOperation.js';
import { checkServiceEnv, type ServiceSettings } from './checkServiceEnv.js';
import { StartupError } from './StartupError.js';

export { StartupError };

/** The roles `onejob serve --role` accepts: the HTTP API and the background roles. */
export type Role = 'api' | BackgroundRole;
export const ROLES: readonly Role[] = ['api', ...BACKGROUND_ROLES];

export interface ServiceOptions {
  roles?: readonly Role[];
  configPath?: string | undefined;
  env?: NodeJS.ProcessEnv;
  /** Where the embedded database, its state and the dev token live. Default `./.onejob`. */
  homeDir?: string;
  logger?: Logger;
  /** Operations written in TypeScript, served over HTTP beside the config's operations. */
  operations?: readonly AnyCodeOperation[];
}

export interface RunningService {
  onejob: Onejob;
  app: FastifyInstance | undefined;
  /** Base URL of the HTTP API when the api role runs. */
  url: string | undefined;
  connectionString: string;
  /** Where the configuration came from: the file's path, or `built-in`. */
  configSource: string;
  embedded: EmbeddedDatabase | undefined;
  /** The generated development token, when one was used. */
  devToken: string | undefined;
  /** The file holding the generated admin token, when one was used (no ONEJOB_ADMIN_TOKEN). */
  adminTokenFile: string | undefined;
  /**
   * Stops in order: no new requests or claims, in-flight work drains, the pools close,
   * and only then the embedded PostgreSQL stops. `progress` gets one line per phase.
   */
  stop(progress?: (line: string) => void): Promise<void>;
}

/** Requests still open this long after shutdown began (long-polls) are cut. */
const HTTP_DRAIN_MS = 5_000;

/** How clients and operators authenticate: configured tokens, or generated ones beside the embedded database. */
async function serviceCredentials(
  settings: ServiceSettings,
  databaseUrl: string | undefined,
  home: string,
): Promise<{
  apiKeys: ApiKeys;
  devToken: string | undefined;
  adminToken: string | undefined;
  adminTokenFile: string | undefined;
}> {
  let token: string | undefined;
  let apiKeys: ApiKeys;
  if (settings.apiKeys) {
    apiKeys = settings.apiKeys;
  } else if (databaseUrl) {
    throw new StartupError(
      'ONEJOB_API_KEYS is not set. With an external DATABASE_URL onejob will not invent credentials: ' +
        'set ONEJOB_API_KEYS=token=ownerId[,token=ownerId].',
    );
  } else {
    token = (await devToken(join(home, 'api-key'))).token;
    apiKeys = new ApiKeys([[token, 'dev']]);
  }
  // With the embedded default an operator needs no setting to act either: the admin token
  // is generated once and kept beside the development token. A set ONEJOB_ADMIN_TOKEN wins.
  let adminToken = settings.adminToken;
  let adminTokenFile: string | undefined;
  if (!adminToken && !databaseUrl) {
    adminTokenFile = join(home, ADMIN_TOKEN_FILE);
    adminToken = (await storedToken(adminTokenFile, 'oj_admin_')).token;
  }
  return { apiKeys, devToken: token, adminToken, adminTokenFile };
}

/** DATABASE_URL, or the embedded PostgreSQL without it; migrated either way. */
async function serviceDatabase(
  env: NodeJS.ProcessEnv,
  config: OnejobConfig,
  home: string,
  logger: Logger,
): Promise<{ connectionString: string; embedded: EmbeddedDatabase | undefined }> {
  let embedded: EmbeddedDatabase | undefined;
  let connectionString = env.DATABASE_URL;
  if (!connectionString) {
    try {
      embedded = await startEmbedded(home, {
        log: (msg) => logger.info(msg),
        command: 'onejob serve',
        exclusive: true,
      });
    } catch (error) {
      if (error instanceof EmbeddedInUseError) throw new StartupError(error.message);
      throw error;
    }
    connectionString = embedded.connectionString;
  }
  // An undeclared transaction pooler is refused now rather than failing at random later.
  const pooler = poolerSettings(config.database, env);
  if (!embedded) await refuseUndeclaredPooler(pooler, connectionString);
  const migration = await migrate(migrationUrl(pooler, connectionString));
  if (migration.applied.length) logger.info({ applied: migration.applied }, 'migrations applied');
  return { connectionString, embedded };
}

/**
 * Starts onejob as a service: database (external or embedded), migrations, the engine,
 * and the requested roles. `onejob serve` and the tests both start it this way.
 */
export async function startService(options: ServiceOptions = {}): Promise<RunningService> {
  const env = options.env ?? process.env;
  const roles = options.roles ?? ['api', 'worker', 'relay'];
  const home = resolve(options.homeDir ?? '.onejob');
  let format: LogFormat;
  try {
    format = logFormat(env);
  } catch (error) {
    throw new StartupError((error as Error).message);
  }
  const logger = options.logger ?? createLogger(env.LOG_LEVEL, undefined, format);
  const settings = checkServiceEnv(env, (message) => logger.warn(message));
  const configPath = options.configPath ?? (env.ONEJOB_CONFIG || undefined);
  const config = await loadConfig(configPath, env);

  const credentials = await serviceCredentials(settings, env.DATABASE_URL, home);
  const { connectionString, embedded } = await serviceDatabase(env, config, home, logger);
  // The same engine a library user creates; the service only adds HTTP and the process around it.
  const onejob: Onejob = createOnejob({
    connectionString,
    config,
    logger,
    env,
    operations: options.operations ?? [],
  });
  const stops: (() => Promise<void>)[] = [];
  let app: FastifyInstance | undefined;
  let url: string | undefined;
  try {
    await warnIfAutovacuumOff(onejob.pool, logger);
    if (roles.includes('api')) {
      app = await buildServer(onejob, {
        apiKeys: credentials.apiKeys,
        adminToken: credentials.adminToken,
        metricsToken: settings.metricsToken,
      });
      const address = await app.listen({ port: settings.port, host: settings.host });
      url = address.replace('[::1]', 'localhost');
      const started = app;
      stops.push(async () => {
        const cut = setTimeout(() => started.server.closeAllConnections(), HTTP_DRAIN_MS);
        try {
          await started.close();
        } finally {
          clearTimeout(cut);
        }
      });
    }
    const background = roles.filter((role): role is BackgroundRole => role !== 'api');
    if (background.length > 0) {
      await onejob.start({ roles: background });
      stops.push(() => onejob.stop());
    }
  } catch (error) {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    await onejob.close().catch(() => undefined);
    await embedded?.stop().catch(() => undefined);
    throw error;
  }

  let stopping: Promise<void> | undefined;
  return {
    onejob,
    app,
    url,
    connectionString,
    configSource: configPath ?? 'built-in',
    embedded,
    devToken: credentials.devToken,
    adminTokenFile: credentials.adminTokenFile,
    stop: (progress = () => {}) => {
      stopping ??= (async () => {
        const began = Date.now();
        // The HTTP listener and the worker's claims stop together; each then drains what it holds.
        await Promise.all(stops.map((stop) => stop()));
        progress(`drained in ${Date.now() - began} ms; closing database pools`);
        await onejob.close();
        if (embedded?.owned) {
          progress('pools closed; stopping embedded PostgreSQL');
          await embedded.stop({ waitForSessionsMs: 5_000 });
        }
        progress('stopped');
      })();
      return stopping;
    },
  };
}
