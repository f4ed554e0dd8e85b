// What a person running `onejob serve` in a terminal reads: pino-pretty lines, not JSON,
// and the log publisher's events out of the way (through the logger at debug level). A
// pipe or a file still gets JSON lines; `"output": "stdout"` still gets one CloudEvent
// JSON line per event, for whoever reads them.
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/defaultConfig.js';
import { logFormat } from '../../src/observability/createLogger.js';
import { apiBase, spawnOnejob } from '../helpers/spawnOnejob.js';
import { createTestDatabase, type TestDatabase } from '../helpers/testDatabase.js';
import { until } from '../helpers/until.js';

const ROOT = join(import.meta.dirname, '..', '..');
const TSX = import.meta.resolve('tsx');
const TOKEN = 'terminal-logs-token-0123456789';

let db: TestDatabase;
let dir: string;
beforeAll(async () => {
  db = await createTestDatabase();
  dir = await mkdtemp(join(tmpdir(), 'onejob-terminal-'));
});
afterAll(async () => {
  await db?.drop();
  await rm(dir, { recursive: true, force: true });
});

const env = (extra: Record<string, string> = {}) => {
  const merged: Record<string, string> = {};
  for (const [k, v] of Object.entries({
    ...process.env,
    DATABASE_URL: db.url,
    ONEJOB_API_KEYS: `${TOKEN}=owner`,
    PORT: '0',
    LOG_LEVEL: 'info',
    ...extra,
  }))
    if (v !== undefined && k !== 'LOG_FORMAT' && k !== 'ONEJOB_CONFIG') merged[k] = v;
  return { ...merged, ...extra };
};

/** `onejob serve` on a pseudo-terminal (util-linux `script`), as a person runs it. */
function serveOnTerminal(extra: Record<string, string> = {}) {
  const command = `node --import ${TSX} ${join(ROOT, 'src', 'cli', 'main.ts')} serve --role api,relay`;
  const child = spawn('script', ['-qfec', command, '/dev/null'], {
    env: env(extra),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  return {
    output: () => out.replace(/\r/g, ''),
    stop: async () => {
      child.stdin.write('\x03'); // Ctrl-C on the terminal
      await exited;
    },
  };
}

async function createJobAt(base: string, key: string) {
  const r = await fetch(`${base}/v1/jobs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'idempotency-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({ operation: 'charge', input: { amount: 1 } }),
  });
  expect(r.status).toBe(202);
  return ((await r.json()) as { id: string }).id;
}

/** Waits until the log publisher has published every event of the job. */
async function published(jobId: string) {
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    await until('the log publisher to publish the job’s events', async () => {
      const { rows } = await client.query(
        `SELECT count(*)::int AS n FROM onejob.outbox_deliveries WHERE subject = $1 AND state = 'published'`,
        [jobId],
      );
      return rows[0].n >= 1;
    });
  } finally {
    await client.end();
  }
}

describe('logs on a terminal and elsewhere', { timeout: 120_000 }, () => {
  it('LOG_FORMAT picks the format; unset, a terminal gets pretty lines and anything else JSON', () => {
    expect(logFormat({}, true)).toBe('pretty');
    expect(logFormat({}, false)).toBe('json');
    expect(logFormat({ LOG_FORMAT: 'json' }, true)).toBe('json');
    expect(logFormat({ LOG_FORMAT: 'pretty' }, false)).toBe('pretty');
    expect(() => logFormat({ LOG_FORMAT: 'xml' }, true)).toThrow(
      /LOG_FORMAT "xml" is not one of json, pretty/,
    );
  });

  it('on a terminal: readable lines, no JSON, and no event lines by default', async () => {
    const serve = serveOnTerminal();
    try {
      const line = await until(
        'the banner',
        async () => /API\s+(http:\/\/\S+)\/v1\/jobs/.exec(serve.output()) ?? undefined,
        60_000,
      );
      const id = await createJobAt(line[1]!, 'terminal-1');
      await published(id);
      await until('the request line', async () => serve.output().includes('request completed'));
      const out = serve.output();
      expect(out).toMatch(/^\S*\[\d\d:\d\d:\d\d\.\d{3}\] \S*INFO\S*: \S*outbox relay started/m);
      expect(out).not.toContain('"level":');
      expect(out).not.toContain('"specversion"');
    } finally {
      await serve.stop();
    }
  });

  it('with LOG_LEVEL=debug the events appear as debug lines of the relay', async () => {
    const serve = serveOnTerminal({ LOG_LEVEL: 'debug', NO_COLOR: '1' });
    try {
      const line = await until(
        'the banner',
        async () => /API\s+(http:\/\/\S+)\/v1\/jobs/.exec(serve.output()) ?? undefined,
        60_000,
      );
      const id = await createJobAt(line[1]!, 'terminal-2');
      await until('the event line', async () =>
        serve.output().includes(`DEBUG: outbox event onejob.job.created`),
      );
      expect(serve.output()).toContain(id);
    } finally {
      await serve.stop();
    }
  });

  it('to a pipe: JSON lines; a log publisher with "output": "stdout" prints one CloudEvent line per event', async () => {
    const file = join(dir, 'stdout-events.json');
    await writeFile(
      file,
      JSON.stringify({ ...defaultConfig, outbox: { publishers: [{ kind: 'log', output: 'stdout' }] } }),
    );
    const serve = spawnOnejob(['serve', '--role', 'api,relay', '--config', file], env({ LOG_FORMAT: '' }));
    try {
      const id = await createJobAt(await apiBase(serve, 90_000), 'pipe-1');
      const event = await serve.waitForOutput(
        new RegExp(`^\\{(?=.*"specversion": ?"1.0")(?=.*"subject": ?"${id}")(?!.*"level")`),
      );
      expect(JSON.parse(event)).toMatchObject({ type: 'onejob.job.created', subject: id });
      expect(serve.output()).toMatch(/^\{"level":30,.*"msg":"outbox relay started"/m);
    } finally {
      await serve.kill();
    }
  });
});
