import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { validateConfigWith } from '../../src/config/loadConfig.js';
import { ConfigError, configChecks, validateConfig } from '../../src/engine/loadConfig.js';
import { looseDefaultConfig, refusal } from '../helpers/configRefusal.js';
import { spawnOnejob } from '../helpers/spawnOnejob.js';

const base = looseDefaultConfig;

describe('configuration', () => {
  it('the built-in default config is valid and defines operations for the quick start', () => {
    const config = validateConfig(base(), 'default', {});
    expect(Object.keys(config.operations)).toEqual(expect.arrayContaining(['charge', 'summarize']));
  });

  it.each([
    ['an unknown top-level key', (c: any) => (c.provders = {}), '/provders'],
    ['an unknown operation key', (c: any) => (c.operations.charge.retries = 3), '/operations/charge/retries'],
    [
      'an unknown provider kind',
      (c: any) => (c.providers['sim-a'] = { kind: 'grpc' }),
      '/providers/sim-a/kind',
    ],
    [
      'a key that does not belong to the provider kind',
      (c: any) => (c.providers['sim-a'].url = 'http://x'),
      '/providers/sim-a/url',
    ],
    [
      'a provider missing its model',
      (c: any) => (c.providers.gpt = { kind: 'openai-compatible', baseUrl: 'http://127.0.0.1:1/v1' }),
      '/providers/gpt/model',
    ],
    [
      'an operation naming a missing provider',
      (c: any) => (c.operations.charge.providers = ['nope']),
      '/operations/charge/providers/0',
    ],
    [
      'hedging on an exclusive operation',
      (c: any) => (c.operations.charge.hedgeAfterMs = 100),
      '/operations/charge/hedgeAfterMs',
    ],
    [
      'an invalid input schema',
      (c: any) => (c.operations.charge.inputSchema = { type: 'nonsense' }),
      '/operations/charge/inputSchema',
    ],
    [
      'a negative timeout',
      (c: any) => (c.operations.charge.attemptTimeoutMs = -1),
      '/operations/charge/attemptTimeoutMs',
    ],
    [
      'a compat model naming a missing provider',
      (c: any) => (c.compat = { models: { 'gpt-4o': { providers: ['nope'] } } }),
      '/compat/models/gpt-4o/providers/0',
    ],
    [
      'a compat model on a provider that speaks no chat wire format',
      (c: any) => {
        c.providers.web = { kind: 'http', url: 'http://127.0.0.1:1/charge' };
        c.compat = { models: { 'openai/gpt-4o': { providers: ['web'] } } };
      },
      '/compat/models/openai~1gpt-4o/providers/0',
    ],
    [
      'an unknown compat model key',
      (c: any) => (c.compat = { models: { m: { providers: ['sim-a'], prompt: {} } } }),
      '/compat/models/m/prompt',
    ],
    [
      'hedging on an exclusive compat model',
      (c: any) => {
        c.providers.gpt = { kind: 'openai-compatible', baseUrl: 'http://127.0.0.1:1/v1', model: 'x' };
        c.compat = { models: { m: { providers: ['gpt'], effect: 'exclusive', hedgeAfterMs: 100 } } };
      },
      '/compat/models/m/hedgeAfterMs',
    ],
  ])('refuses %s and names the path', (_name, mutate, path) => {
    expect(refusal(mutate).path).toBe(path);
  });

  it('refuses a provider whose API key variable is not set, naming the key', () => {
    const error = refusal((c) => {
      c.providers.gpt = {
        kind: 'openai-compatible',
        baseUrl: 'http://127.0.0.1:1/v1',
        model: 'gpt-4o-mini',
        apiKeyEnv: 'GPT_KEY',
      };
    });
    expect(error.path).toBe('/providers/gpt/apiKeyEnv');
    expect(error.message).toMatch(/GPT_KEY/);
  });

  it('the config module checks shape and references; what a setting means comes only from the checks passed in', () => {
    const config = base();
    config.providers.gpt = {
      kind: 'openai-compatible',
      baseUrl: 'http://127.0.0.1:1/v1',
      model: 'gpt-4o-mini',
      apiKeyEnv: 'GPT_KEY',
    };
    delete config.operations.summarize.prompt;
    expect(() => validateConfigWith([], config, 'test', {})).not.toThrow();
    let refused: unknown;
    try {
      validateConfigWith(configChecks, config, 'test', {});
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(ConfigError);
    expect((refused as ConfigError).problems.map((p) => p.path)).toEqual([
      '/operations/summarize/prompt',
      '/providers/gpt/apiKeyEnv',
    ]);
  });

  it('a file with three typos is refused once, naming each bad key by its JSON pointer', () => {
    const error = refusal((c) => {
      c.operations.charge.atemptTimeoutMs = 5_000;
      c.providers['sim-a'].latncyMs = 10;
      c.outbox.publisher = [];
    });
    expect(error.problems).toEqual([
      { path: '/providers/sim-a/latncyMs', message: 'is not a known key' },
      { path: '/operations/charge/atemptTimeoutMs', message: 'is not a known key' },
      { path: '/outbox/publisher', message: 'is not a known key' },
    ]);
    expect(error.path).toBe('/providers/sim-a/latncyMs');
    expect(error.message.split('\n')).toEqual([
      'test: 3 problems',
      '  /providers/sim-a/latncyMs is not a known key',
      '  /operations/charge/atemptTimeoutMs is not a known key',
      '  /outbox/publisher is not a known key',
    ]);
  });

  it('an enum or a kind out of its list is refused with the allowed values', () => {
    const error = refusal((c) => {
      c.operations.charge.effect = 'exclsive';
      c.providers['sim-b'] = { kind: 'grpc' };
      c.outbox.publishers.push({ kind: 'rabbitmq', url: 'amqp://127.0.0.1', exchangeType: 'topc' });
      c.operations.charge.permanentStatuses = [409];
    });
    expect(error.problems).toEqual(
      expect.arrayContaining([
        { path: '/operations/charge/effect', message: 'must be one of exclusive, pure' },
        {
          path: '/providers/sim-b/kind',
          message: 'is "grpc"; it must be one of http, openai-compatible, anthropic, simulated',
        },
        {
          path: '/outbox/publishers/1/exchangeType',
          message: 'must be one of topic, direct, fanout, headers',
        },
        { path: '/operations/charge/permanentStatuses/0', message: 'must not be one of 408, 409, 425, 429' },
      ]),
    );
    expect(error.message).not.toContain('allowed values');
  });

  it('references between parts are all reported at once too', () => {
    const error = refusal((c) => {
      c.operations.charge.providers = ['nope'];
      c.operations.charge.hedgeAfterMs = 100;
      c.operations.summarize.providers = ['sim-a', 'gone'];
    });
    expect(error.problems.map((p) => p.path)).toEqual([
      '/operations/charge/providers/0',
      '/operations/charge/hedgeAfterMs',
      '/operations/summarize/providers/1',
    ]);
  });

  it('onejob serve refuses to start with a bad config file and exits 2 naming every bad key', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'onejob-config-'));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    const file = join(dir, 'bad.json');
    const config = base();
    config.providers.pay = { kind: 'http', url: 'http://127.0.0.1:9/charge', idempotant: true };
    config.operations.charge.efect = 'pure';
    config.operations.charge.maxAttempts = 'three';
    await writeFile(file, JSON.stringify(config));
    const serve = spawnOnejob(['serve', '--config', file], {
      DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/test',
      ONEJOB_API_KEYS: 't=o',
      PORT: '0',
    });
    expect(await serve.exited).toBe(2);
    // All three at once: one start is enough to see every typo.
    expect(serve.output()).toContain('3 problems');
    expect(serve.output()).toContain('/providers/pay/idempotant is not a known key');
    expect(serve.output()).toContain('/operations/charge/efect is not a known key');
    expect(serve.output()).toContain('/operations/charge/maxAttempts must be integer');
  });
});
