// The environment `onejob serve` starts from, checked before anything starts: a bad
// setting stops the service with one line naming it, never a stack trace and never a
// silent fallback (a port read up to its first non-digit, a collector on 127.0.0.1).
import { parseFailpoints } from '../../failpoints/failpoints.js';
import { ApiKeys, MIN_TOKEN_LENGTH } from '../../http/apiKeys.js';
import { StartupError } from './StartupError.js';

/** What the HTTP side of the service starts with. */
export interface ServiceSettings {
  /** Undefined when ONEJOB_API_KEYS is unset (the embedded default makes a dev token). */
  apiKeys: ApiKeys | undefined;
  adminToken: string | undefined;
  metricsToken: string | undefined;
  port: number;
  host: string;
}

const OTLP_ENDPOINTS = ['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'] as const;

function checkPort(value: string | undefined): number {
  if (value === undefined || value === '') return 8080;
  const port = /^\d{1,5}$/.test(value) ? Number(value) : Number.NaN;
  if (!(port >= 0 && port <= 65535))
    throw new StartupError(`PORT "${value}" is not a port number (0 to 65535, digits only)`);
  return port;
}

function checkEndpoints(env: NodeJS.ProcessEnv): void {
  for (const name of OTLP_ENDPOINTS) {
    const value = env[name];
    if (!value) continue;
    let ok = false;
    try {
      ok = ['http:', 'https:'].includes(new URL(value).protocol);
    } catch {}
    if (!ok) throw new StartupError(`${name} "${value}" is not an http:// or https:// URL`);
  }
}

/** An operator token: long enough not to be guessed, and a token a Bearer header can carry. */
function checkOperatorToken(name: string, token: string | undefined): string | undefined {
  if (token === undefined || token === '') return undefined;
  if (/\s/.test(token))
    throw new StartupError(`${name} contains whitespace, which no Authorization header can carry`);
  if (token.length < MIN_TOKEN_LENGTH)
    throw new StartupError(
      `${name} is ${token.length} characters long; use at least ${MIN_TOKEN_LENGTH} random characters`,
    );
  return token;
}

/**
 * Each token opens one door: the admin token, the metrics token and every API key differ,
 * or a tenant's key would open the operator endpoints (or scrape every tenant's volumes).
 */
function checkDistinct(settings: ServiceSettings): void {
  const { adminToken, metricsToken, apiKeys } = settings;
  if (adminToken && adminToken === metricsToken)
    throw new StartupError(
      'ONEJOB_ADMIN_TOKEN and ONEJOB_METRICS_TOKEN are the same token; give each its own',
    );
  for (const [name, token] of [
    ['ONEJOB_ADMIN_TOKEN', adminToken],
    ['ONEJOB_METRICS_TOKEN', metricsToken],
  ] as const) {
    const owner = token ? apiKeys?.ownerOf(token) : undefined;
    if (owner !== undefined)
      throw new StartupError(
        `${name} is also the ONEJOB_API_KEYS token of owner ${owner}; give each its own`,
      );
  }
}

/** Checks and reads the service's settings from the environment; throws StartupError naming the bad one. */
export function checkServiceEnv(env: NodeJS.ProcessEnv, warn: (message: string) => void): ServiceSettings {
  try {
    parseFailpoints(env.ONEJOB_FAILPOINTS);
  } catch (error) {
    throw new StartupError((error as Error).message);
  }
  checkEndpoints(env);
  let apiKeys: ApiKeys | undefined;
  try {
    apiKeys = env.ONEJOB_API_KEYS ? ApiKeys.parse(env.ONEJOB_API_KEYS, warn) : undefined;
  } catch (error) {
    throw new StartupError((error as Error).message);
  }
  const settings: ServiceSettings = {
    apiKeys,
    adminToken: checkOperatorToken('ONEJOB_ADMIN_TOKEN', env.ONEJOB_ADMIN_TOKEN),
    metricsToken: checkOperatorToken('ONEJOB_METRICS_TOKEN', env.ONEJOB_METRICS_TOKEN),
    port: checkPort(env.PORT),
    host: env.HOST ?? '127.0.0.1',
  };
  checkDistinct(settings);
  return settings;
}
