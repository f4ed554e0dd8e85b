// Where the client commands find the server and the token: ONEJOB_URL and ONEJOB_TOKEN
// (ONEJOB_ADMIN_TOKEN for operator commands), else the development token `onejob serve`
// wrote to .onejob/api-key. The CLI reads server state only through the HTTP API.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type OnejobClient, createClient } from '../client/index.js';

export const DEFAULT_URL = 'http://127.0.0.1:8080';

export interface ClientConfig {
  url: string;
  /** Whether the URL was given (ONEJOB_URL) or is the default. */
  urlSource: 'ONEJOB_URL' | 'default';
  token: string | undefined;
  /** Where the token came from, for error messages. */
  tokenSource: 'ONEJOB_TOKEN' | 'dev token file' | 'none';
  adminToken: string | undefined;
}

/** Said when the CLI has nothing to talk to: how to point it at a server. */
export const HOW_TO_CONNECT = [
  'Point the CLI at a running onejob server:',
  `  export ONEJOB_URL=http://host:8080      # default ${DEFAULT_URL}`,
  "  export ONEJOB_TOKEN=<API token>         # a token from the server's ONEJOB_API_KEYS",
  '  export ONEJOB_ADMIN_TOKEN=<admin token> # for outbox and provider verification',
  'or run it in the folder where `onejob serve` keeps .onejob/ (its development token is read from there).',
].join('\n');

/** A configuration problem of the CLI itself: main prints it and exits 2. */
export class CliConfigError extends Error {
  override name = 'CliConfigError';
}

export function clientConfig(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): ClientConfig {
  const url = (env.ONEJOB_URL || DEFAULT_URL).replace(/\/+$/, '');
  const urlSource = env.ONEJOB_URL ? 'ONEJOB_URL' : 'default';
  const adminToken = env.ONEJOB_ADMIN_TOKEN || undefined;
  if (env.ONEJOB_TOKEN)
    return { url, urlSource, token: env.ONEJOB_TOKEN, tokenSource: 'ONEJOB_TOKEN', adminToken };
  const file = join(resolve(cwd, '.onejob'), 'api-key');
  if (existsSync(file))
    return {
      url,
      urlSource,
      token: readFileSync(file, 'utf8').trim(),
      tokenSource: 'dev token file',
      adminToken,
    };
  return { url, urlSource, token: undefined, tokenSource: 'none', adminToken };
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
        ? `this is an operator command: set ONEJOB_ADMIN_TOKEN to the admin token of ${config.url}`
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
