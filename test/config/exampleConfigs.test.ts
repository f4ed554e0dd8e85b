import { randomBytes } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { OnejobConfig } from '../../src/config/types.js';
import { ConfigError, loadConfig } from '../../src/engine/loadConfig.js';
import { inboxSources } from '../../src/inbox/inboxSources.js';
import { createPublishers } from '../../src/outbox/publishers/createPublishers.js';

const dir = join(import.meta.dirname, '../../examples/config');

const whsec = () => `whsec_${randomBytes(24).toString('base64')}`;

// Each example with the secrets it names; the loader reads them from this env only.
const examples: Record<string, { env: Record<string, string>; check: (c: OnejobConfig) => void }> = {
  'payments-http.json': {
    env: {},
    check(c) {
      const pay = c.providers.payments;
      expect(pay?.kind).toBe('http');
      expect(pay && 'statusUrl' in pay && pay.statusUrl).toContain('{key}');
      expect(c.operations.charge?.kind).toBe('http');
    },
  },
  'inference-two-providers.json': {
    env: { OPENAI_API_KEY: 'sk-test', ANTHROPIC_API_KEY: 'sk-ant-test' },
    check(c) {
      const op = c.operations.summarize;
      expect(op?.kind).toBe('inference.chat');
      expect(op?.providers).toHaveLength(2);
      expect(op?.contract?.fixtures?.length).toBeGreaterThan(0);
    },
  },
  'outbox-nats-webhooks.json': {
    env: { BILLING_WEBHOOK_SECRET: whsec(), CRM_WEBHOOK_SECRET: whsec() },
    check(c) {
      const kinds = (c.outbox?.publishers ?? []).map((p) => p.kind);
      expect(kinds).toContain('nats');
      expect(kinds).toContain('webhook');
    },
  },
  'compat-local.json': {
    env: {},
    check(c) {
      const model = c.compat?.models?.['gpt-4o-mini'];
      expect(model?.providers.map((p) => c.providers[p]?.kind)).toEqual(['simulated', 'simulated']);
    },
  },
  'inbox-source.json': {
    env: { SHOP_WEBHOOK_SECRET: whsec() },
    check(c) {
      expect(Object.keys(c.inbox?.sources ?? {})).toHaveLength(1);
    },
  },
};

// What the server builds from a loaded config at start, beyond the loader's own checks.
async function buildAtStart(config: OnejobConfig, env: NodeJS.ProcessEnv) {
  inboxSources(config, env);
  if (config.outbox?.publishers) {
    for (const publisher of createPublishers(config.outbox.publishers, env)) await publisher.close();
  }
}

describe('examples/config', () => {
  it('holds exactly the examples this test loads', async () => {
    const files = (await readdir(dir)).filter((f) => f.endsWith('.json')).sort();
    expect(files).toEqual(Object.keys(examples).sort());
  });

  it.each(Object.entries(examples))(
    '%s loads through the config loader and builds its sources and publishers',
    async (file, { env, check }) => {
      const config = await loadConfig(join(dir, file), env);
      check(config);
      await buildAtStart(config, env);
    },
  );

  it.each(
    Object.entries(examples).flatMap(([file, { env }]) => Object.keys(env).map((name) => [file, name])),
  )('%s refuses to load without %s, the secret it names', async (file, name) => {
    const env = { ...examples[file]?.env };
    delete env[name];
    const refused = await loadConfig(join(dir, file), env).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(ConfigError);
    expect((refused as ConfigError).message).toContain(name);
  });
});
