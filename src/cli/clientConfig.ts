// Where the client commands find the server and the token: ONEJOB_URL and ONEJOB_TOKEN
// (ONEJOB_ADMIN_TOKEN for operator commands), else the development and admin tokens
// `onejob serve` wrote to .onejob/api-key and .onejob/admin-token. The CLI reads server
// state only through the HTTP API.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createClient, type OnejobClient } from '../client/index.js';
import { ADMIN_TOKEN_FILE, DEV_TOKEN_FILE } from '../http/storedToken.js';

export const DEFAULT_URL = 'http://127.0.0.1:8080';

export interface ClientConfig {
  url: string;
  /** Whether the URL was given (ONEJOB_URL) or is the default. */
  urlSource: 'ONEJOB_URL' | 'default';
  token: string | undefined;
  /** Where the token came from, for error messages. */
  tokenSource: 'ONEJOB_TOKEN' | 'dev token file' | 'none';
  adminToken: string | undefined;
  /** Where the admin token came from, for error messages. */
  adminTokenSource: 'ONEJOB_ADMIN_TOKEN' | 'admin token file' | 'none';
}

/** Said when the CLI has nothing to talk to: how to point it at a server. */
export const HOW_TO_CONNECT = [
  'Point the CLI at a running onejob server:',
  `  export ONEJOB_URL=http://host:8080      # default ${DEFAULT_URL}`,
  "  export ONEJOB_TOKEN=<API token>         # a token from the server's ONEJOB_API_KEYS",
  '  export ONEJOB_ADMIN_TOKEN=<admin token> # for outbox and provider verification',
  'or run it in the folder where `onejob serve` keeps .onejob/ (its development and admin tokens are read from there).',
].join('\n');

/** A configuration problem of the CLI itself: main prints it and exits 2. */
export class CliConfigError extends Error {
  override name = 'CliConfigError';
}

export function clientConfig(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): ClientConfig {
  const url = (env.ONEJOB_URL || DEFAULT_URL).replace(/\/+$/, '');
  const urlSource = env.ONEJOB_URL ? 'ONEJOB_URL' : 'default';
  const home = resolve(cwd, '.onejob');
  const admin = env.ONEJOB_ADMIN_TOKEN
    ? { adminToken: env.ONEJOB_ADMIN_TOKEN, adminTokenSource: 'ONEJOB_ADMIN_TOKEN' as const }
    : fromFile(join(home, ADMIN_TOKEN_FILE), (adminToken) => ({
        adminToken,
        adminTokenSource: 'admin token file' as const,
      }));
  const owner = env.ONEJOB_TOKEN
    ? { token: env.ONEJOB_TOKEN, tokenSource: 'ONEJOB_TOKEN' as const }
    : fromFile(join(home, DEV_TOKEN_FILE), (token) => ({ token, tokenSource: 'dev token file' as const }));
  return {
    url,
    urlSource,
    ...(owner ?? { token: undefined, tokenSource: 'none' }),
    ...(admin ?? { adminToken: undefined, adminTokenSource: 'none' }),
  };
}

function fromFile<T>(file: string, found: (token: string) => T): T | undefined {
  return existsSync(file) ? found(readFileSync(file, 'utf8').trim()) : undefined;
}

/**
 * A client for the CLI: a failure is reported once on stderr, so no retry is silent.
 * `as: 'admin'` sends ONEJOB_ADMIN_TOKEN, for the operator routes.
 */
export function cliClient(config = clientConfig(), as: 'owner' | 'admin' = 'owner'): OnejobClient {
  const token = as === 'admin' ? config.adminToken : config.token;
  if (!token) {
    if (config.urlSource === 'default' && config.tokenSource === 'none' && !config.adminToken)
      throw new CliConfigError(`no server configured.\n${HOW_TO_CONNECT}`);
    throw new CliConfigError(
      as === 'admin'
        ? `this is an operator command: set ONEJOB_ADMIN_TOKEN to the admin token of ${config.url}, or run it next to the .onejob/ folder \`onejob serve\` created (it keeps a generated admin token in .onejob/${ADMIN_TOKEN_FILE})`
        : `no token for ${config.url}: set ONEJOB_TOKEN, or run this next to the .onejob/ folder \`onejob serve\` created`,
    );
  }
  return createClient({
    baseUrl: config.url,
    token,
    retry: {
      maxTries: 4,
      beforeRetry: ({ retry, delayMs, status, path }) => {
        process.stderr.write(
          `onejob: ${status ? `HTTP ${status}` : 'no answer'} from ${config.url}${path}; retry ${retry} in ${delayMs} ms\n`,
        );
      },
    },
  });
}
