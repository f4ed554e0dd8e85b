import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { validateConfig } from '../../src/engine/loadConfig.js';
import { type LooseConfig, looseDefaultConfig, refusal } from '../helpers/configRefusal.js';
import { spawnOnejob } from '../helpers/spawnOnejob.js';

type Loose = LooseConfig;
const base = looseDefaultConfig;

const gpt = { kind: 'openai-compatible', baseUrl: 'http://127.0.0.1:1/v1', model: 'gpt-4o-mini' };

describe('provider configuration', () => {
  it.each([
    [
      'an unknown provider kind',
      (c: Loose) => (c.providers.x = { kind: 'bedrock', model: 'm' }),
      '/providers/x/kind',
    ],
    [
      'an anthropic provider without a model',
      (c: Loose) => (c.providers.x = { kind: 'anthropic', baseUrl: 'http://127.0.0.1:1' }),
      '/providers/x/model',
    ],
    [
      'an openai-compatible provider without a baseUrl',
      (c: Loose) => (c.providers.x = { kind: 'openai-compatible', model: 'gpt-4o' }),
      '/providers/x/baseUrl',
    ],
    [
      'maxTokens on an openai-compatible provider',
      (c: Loose) => (c.providers.x = { ...gpt, maxTokens: 10 }),
      '/providers/x/maxTokens',
    ],
    [
      'a misspelt price',
      (c: Loose) => (c.providers.x = { ...gpt, prices: { inputPerMillion: 1 } }),
      '/providers/x/prices/inputPerMillion',
    ],
    [
      'a rule with an unknown constraint',
      (c: Loose) => (c.operations.summarize.rules = [{ path: '/summary', maxLen: 3 }]),
      '/operations/summarize/rules/0/maxLen',
    ],
    [
      'a rule with no constraint at all',
      (c: Loose) => (c.operations.summarize.rules = [{ path: '/summary' }]),
      '/operations/summarize/rules/0',
    ],
    [
      'a rule whose path is not a JSON pointer',
      (c: Loose) => (c.operations.summarize.rules = [{ path: 'summary', maxLength: 3 }]),
      '/operations/summarize/rules/0/path',
    ],
    [
      'a rule with a broken regular expression',
      (c: Loose) => (c.operations.summarize.rules = [{ path: '/summary', notMatches: '(' }]),
      '/operations/summarize/rules/0',
    ],
    [
      'an http provider on an inference operation',
      (c: Loose) => {
        c.operations.summarize.providers = ['sim-a', 'sim-pay-http'];
        c.providers['sim-pay-http'] = { kind: 'http', url: 'http://127.0.0.1:1/x' };
      },
      '/operations/summarize/providers/1',
    ],
    [
      'an ambiguous status (409) in permanentStatuses: the provider may have acted on it',
      (c: Loose) => (c.operations.summarize.permanentStatuses = [402, 409]),
      '/operations/summarize/permanentStatuses/1',
    ],
    [
      'a 5xx in permanentStatuses',
      (c: Loose) => (c.operations.summarize.permanentStatuses = [503]),
      '/operations/summarize/permanentStatuses/0',
    ],
    [
      'an inference operation without a prompt',
      (c: Loose) => delete c.operations.summarize.prompt,
      '/operations/summarize/prompt',
    ],
  ])('refuses %s and names the key', (_name, mutate, path) => {
    expect(refusal(mutate).path).toBe(path);
  });

  it('refuses a provider whose API key variable is unset, naming the variable; accepts it once set', () => {
    const mutate = (c: Loose) => (c.providers.x = { ...gpt, apiKeyEnv: 'ONEJOB_TEST_UNSET_KEY' });
    const error = refusal(mutate);
    expect(error.path).toBe('/providers/x/apiKeyEnv');
    expect(error.message).toContain('ONEJOB_TEST_UNSET_KEY');
    const config = base();
    mutate(config);
    expect(() => validateConfig(config, 'test', { ONEJOB_TEST_UNSET_KEY: 'sk-x' })).not.toThrow();
  });

  it('accepts every rule form the docs describe', () => {
    const config = base();
    config.operations.summarize.rules = [
      { path: '/summary', maxLength: 280, minLength: 1, required: true },
      { path: '/score', min: 0, max: 1 },
      { path: '/lang', in: ['en', 'fr'] },
      { path: '/lang', notIn: ['xx'] },
      { path: '/summary', matches: '\\S', notMatches: 'as an ai', flags: 'i', message: 'no disclaimers' },
    ];
    expect(() => validateConfig(config, 'test', {})).not.toThrow();
  });

  it('onejob serve refuses to start when an API key variable is unset, exits 2 and names the key', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'onejob-providers-'));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    const file = join(dir, 'config.json');
    const config = base();
    config.providers.backup = {
      kind: 'anthropic',
      baseUrl: 'http://127.0.0.1:1',
      model: 'claude-sonnet-4-5',
      apiKeyEnv: 'ONEJOB_TEST_BACKUP_KEY',
    };
    config.operations.summarize.providers = ['sim-a', 'backup'];
    await writeFile(file, JSON.stringify(config));
    const serve = spawnOnejob(['serve', '--config', file], {
      DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/unused',
      ONEJOB_API_KEYS: 't=o',
      PORT: '0',
      ONEJOB_TEST_BACKUP_KEY: undefined,
    });
    expect(await serve.exited).toBe(2);
    expect(serve.output()).toContain(
      '/providers/backup/apiKeyEnv names environment variable ONEJOB_TEST_BACKUP_KEY, which is not set',
    );
  });
});
