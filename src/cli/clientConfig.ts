// Where the client commands find the server and the token: ONEJOB_URL and ONEJOB_TOKEN,
// else the development token `onejob serve` wrote to .onejob/api-key.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type OnejobClient, createClient } from '../client/index.js';

export const DEFAULT_URL = 'http://127.0.0.1:8080';

export interface ClientConfig {
  url: string;
  token: string | undefined;
  /** Where the token came from, for error messages. */
  tokenSource: 'ONEJOB_TOKEN' | 'dev token file' | 'none';
}

export function clientConfig(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): ClientConfig {
  const url = (env.ONEJOB_URL || DEFAULT_URL).replace(/\/+$/, '');
  if (env.ONEJOB_TOKEN) return { url, token: env.ONEJOB_TOKEN, tokenSource: 'ONEJOB_TOKEN' };
  const file = join(resolve(cwd, '.onejob'), 'api-key');
  if (existsSync(file))
    return { url, token: readFileSync(file, 'utf8').trim(), tokenSource: 'dev token file' };
  return { url, token: undefined, tokenSource: 'none' };
}

/** A client for the CLI: a failure is reported once on stderr, so no retry is silent. */
export function cliClient(config = clientConfig()): OnejobClient {
  if (!config.token) {
    throw new Error(
      'no token: set ONEJOB_TOKEN, or run this next to the .onejob/ folder `onejob serve` created',
    );
  }
  return createClient({
    baseUrl: config.url,
    token: config.token,
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
