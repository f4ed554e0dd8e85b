import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/defaultConfig.js';
import { ConfigError, validateConfig } from '../../src/engine/loadConfig.js';
import { retryDelayMs } from '../../src/outbox/outboxSettings.js';

const withOutbox = (outbox: unknown) => ({ ...structuredClone(defaultConfig), outbox });

function refusal(outbox: unknown, env: NodeJS.ProcessEnv = {}): ConfigError {
  try {
    validateConfig(withOutbox(outbox), 'test', env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('the config was accepted');
}

describe('outbox configuration', () => {
  it('accepts every publisher kind with its options', () => {
    const config = validateConfig(
      withOutbox({
        publishers: [
          {
            kind: 'nats',
            url: 'nats://127.0.0.1:4222',
            stream: 'ONEJOB',
            subjectPrefix: 'prod.',
            duplicateWindowMs: 120000,
          },
          {
            kind: 'rabbitmq',
            url: 'amqp://guest:guest@127.0.0.1:5672',
            exchange: 'onejob',
            maxDeliveries: 20,
          },
          {
            kind: 'webhook',
            url: 'https://example.test/hooks',
            secretEnv: 'HOOK_SECRET',
            retryBaseMs: 500,
            retryMaxMs: 60000,
          },
          { kind: 'log', name: 'audit-log' },
        ],
        maxDeliveries: 8,
        retentionHours: 336,
        batchSize: 500,
        pollMs: 250,
      }),
      'test',
      { HOOK_SECRET: `whsec_${Buffer.alloc(32, 7).toString('base64')}` },
    );
    expect(config.outbox?.publishers).toHaveLength(4);
  });

  it('refuses an unknown key of a publisher, naming its path', () => {
    const e = refusal({ publishers: [{ kind: 'nats', url: 'nats://127.0.0.1:4222', strem: 'X' }] });
    expect(e.path).toBe('/outbox/publishers/0/strem');
  });

  it('refuses an unknown publisher kind, naming the kinds there are', () => {
    const e = refusal({ publishers: [{ kind: 'kafka' }] });
    expect(e.path).toBe('/outbox/publishers/0/kind');
    expect(e.message).toContain('nats, rabbitmq, webhook, log');
  });

  it('refuses an unknown outbox option and a webhook without its secret variable', () => {
    expect(refusal({ retention: 3 }).path).toBe('/outbox/retention');
    expect(refusal({ publishers: [{ kind: 'webhook', url: 'http://127.0.0.1:9/x' }] }).path).toBe(
      '/outbox/publishers/0/secretEnv',
    );
    const unset = refusal({
      publishers: [{ kind: 'webhook', url: 'http://127.0.0.1:9/x', secretEnv: 'NOT_SET_ANYWHERE' }],
    });
    expect(unset.path).toBe('/outbox/publishers/0/secretEnv');
  });

  it('refuses two publishers under one name, since delivery progress is tracked by name', () => {
    const e = refusal({ publishers: [{ kind: 'log' }, { kind: 'log' }] });
    expect(e.path).toBe('/outbox/publishers/1/name');
  });

  it('refuses a webhook signing secret under 24 bytes at load, naming its config path', () => {
    const hook = { kind: 'webhook', url: 'http://127.0.0.1:9/x', secretEnv: 'HOOK_SECRET' };
    for (const weak of ['whsec_AA==', `whsec_${Buffer.alloc(23, 1).toString('base64')}`, 'not base64!']) {
      const e = refusal({ publishers: [hook] }, { HOOK_SECRET: weak });
      expect(e.path).toBe('/outbox/publishers/0/secretEnv');
      expect(e.message).toContain('HOOK_SECRET');
    }
    expect(() =>
      validateConfig(withOutbox({ publishers: [hook] }), 'test', {
        HOOK_SECRET: `whsec_${Buffer.alloc(24, 1).toString('base64')}`,
      }),
    ).not.toThrow();
  });

  it('retry delays grow exponentially from retryBaseMs and stop at retryMaxMs', () => {
    const policy = { maxDeliveries: 10, retryBaseMs: 100, retryMaxMs: 1_000 };
    const none = () => 0;
    expect([1, 2, 3, 4, 5, 6].map((n) => retryDelayMs(policy, n, none))).toEqual([
      100, 200, 400, 800, 1000, 1000,
    ]);
    expect(retryDelayMs(policy, 1, () => 1)).toBe(120);
  });
});
