// Each setting the service cannot run with stops `onejob serve` at start with one line
// naming the setting: never a silent fallback, a later failure or a stack trace.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StartupError, startService } from '../../src/cli/serve/startService.js';
import type { OnejobConfig } from '../../src/config/types.js';
import { validateConfig } from '../../src/engine/loadConfig.js';
import { createLogger } from '../../src/observability/createLogger.js';
import { spawnOnejob } from '../helpers/spawnOnejob.js';
import { createTestDatabase, type TestDatabase } from '../helpers/testDatabase.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => db?.drop());

const TENANT = 'tenant-token-0123456789';

async function expectRefused(env: Record<string, string>, message: RegExp) {
  const base = { DATABASE_URL: db.url, ONEJOB_API_KEYS: `${TENANT}=acme`, PORT: '0' };
  const started = await startService({
    env: { ...base, ...env },
    roles: ['api'],
    logger: createLogger('silent'),
  }).then(
    (service) => service,
    (error: unknown) => error as Error,
  );
  if (!(started instanceof Error)) {
    await started.stop();
    expect.fail(`started with ${JSON.stringify(env)}`);
  }
  expect(started).toBeInstanceOf(StartupError);
  expect(started.message).toMatch(message);
}

describe('operator tokens', () => {
  it('an admin or metrics token shorter than 16 characters refuses to start', async () => {
    await expectRefused(
      { ONEJOB_ADMIN_TOKEN: 'a' },
      /^ONEJOB_ADMIN_TOKEN is 1 characters long; use at least 16/,
    );
    await expectRefused({ ONEJOB_METRICS_TOKEN: 'short-metrics' }, /^ONEJOB_METRICS_TOKEN is 13 characters/);
  });

  it('the admin token, the metrics token and the API keys never share a token', async () => {
    await expectRefused(
      { ONEJOB_ADMIN_TOKEN: TENANT },
      /^ONEJOB_ADMIN_TOKEN is also the ONEJOB_API_KEYS token of owner acme/,
    );
    await expectRefused(
      { ONEJOB_METRICS_TOKEN: TENANT },
      /^ONEJOB_METRICS_TOKEN is also the ONEJOB_API_KEYS token of owner acme/,
    );
    await expectRefused(
      { ONEJOB_ADMIN_TOKEN: 'operator-token-0123456789', ONEJOB_METRICS_TOKEN: 'operator-token-0123456789' },
      /^ONEJOB_ADMIN_TOKEN and ONEJOB_METRICS_TOKEN are the same token/,
    );
  });

  it('distinct tokens of 16 characters or more start', async () => {
    const service = await startService({
      env: {
        DATABASE_URL: db.url,
        ONEJOB_API_KEYS: `${TENANT}=acme`,
        ONEJOB_ADMIN_TOKEN: 'admin-token-0123456789',
        ONEJOB_METRICS_TOKEN: 'metrics-token-0123456789',
        PORT: '0',
      },
      roles: ['api'],
      logger: createLogger('silent'),
    });
    await service.stop();
  });
});

describe('bad settings', () => {
  it('one token given to two owners refuses to start, naming neither token', async () => {
    await expectRefused(
      { ONEJOB_API_KEYS: 'shared-token-0123456789=acme,shared-token-0123456789=globex' },
      /^ONEJOB_API_KEYS pair 2: its token is already the token of owner acme; a token maps to one owner$/,
    );
  });

  it('a token containing whitespace refuses to start', async () => {
    await expectRefused(
      { ONEJOB_API_KEYS: 'tenant token 0123456789=acme' },
      /^ONEJOB_API_KEYS pair 1 \(owner acme\): the token contains whitespace/,
    );
    await expectRefused(
      { ONEJOB_ADMIN_TOKEN: 'admin token 0123456789' },
      /^ONEJOB_ADMIN_TOKEN contains whitespace/,
    );
  });

  it('an owner id with a control character refuses to start', async () => {
    await expectRefused(
      { ONEJOB_API_KEYS: `${TENANT}=ac\u001bme` },
      /^ONEJOB_API_KEYS pair 1: the owner id contains a control character/,
    );
  });

  it('a PORT with anything but digits refuses to start instead of running on its leading digits', async () => {
    await expectRefused({ PORT: '18090abc' }, /^PORT "18090abc" is not a port number/);
    await expectRefused({ PORT: '70000' }, /^PORT "70000" is not a port number/);
  });

  it('an OTLP endpoint that is not a URL refuses to start instead of exporting to 127.0.0.1', async () => {
    await expectRefused(
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'not a url' },
      /^OTEL_EXPORTER_OTLP_ENDPOINT "not a url" is not an http:\/\/ or https:\/\/ URL/,
    );
    await expectRefused(
      { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'ftp://collector:4318' },
      /^OTEL_EXPORTER_OTLP_TRACES_ENDPOINT/,
    );
  });

  it('ONEJOB_FAILPOINTS that cannot be parsed refuses to start', async () => {
    await expectRefused(
      { ONEJOB_FAILPOINTS: 'nonsense' },
      /^ONEJOB_FAILPOINTS: "nonsense" is not name=action/,
    );
  });

  it('`onejob serve` with unparsable ONEJOB_FAILPOINTS exits 2 with one line and no stack trace', async () => {
    const serve = spawnOnejob(['serve'], {
      DATABASE_URL: db.url,
      ONEJOB_API_KEYS: `${TENANT}=acme`,
      ONEJOB_FAILPOINTS: 'nonsense',
      PORT: '0',
    });
    expect(await serve.exited).toBe(2);
    expect(serve.output()).toMatch(/onejob: ONEJOB_FAILPOINTS: "nonsense" is not name=action/);
    expect(serve.output()).not.toMatch(/^\s+at /m);
  });

  it('a webhook publisher URL with user:password@ refuses to start, naming its config path', () => {
    const config = {
      providers: {},
      operations: {},
      outbox: {
        publishers: [
          {
            kind: 'webhook',
            url: 'https://user:hunter2@hooks.example/onejob',
            secretEnv: 'ONEJOB_TEST_HOOK_SECRET',
          },
        ],
      },
    } as unknown as OnejobConfig;
    const env = { ONEJOB_TEST_HOOK_SECRET: `whsec_${Buffer.alloc(32, 7).toString('base64')}` };
    expect(() => validateConfig(config, 'onejob.json', env)).toThrow(
      /onejob.json: \/outbox\/publishers\/0\/url holds user:password@/,
    );
  });
});
