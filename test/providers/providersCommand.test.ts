import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OnejobConfig } from '../../src/config/types.js';
import { type FakeAnthropicServer, startFakeAnthropicServer } from '../helpers/fakeAnthropicServer.js';
import { type FakeOpenAiServer, startFakeOpenAiServer } from '../helpers/fakeOpenAiServer.js';
import { spawnOnejob } from '../helpers/spawnOnejob.js';
import { createTestDatabase, type TestDatabase } from '../helpers/testDatabase.js';

let openai: FakeOpenAiServer;
let anthropic: FakeAnthropicServer;
let db: TestDatabase;
let configFile: string;

beforeAll(async () => {
  [openai, anthropic, db] = await Promise.all([
    startFakeOpenAiServer(),
    startFakeAnthropicServer(),
    createTestDatabase(),
  ]);
  openai.script({ kind: 'answer', text: '{"summary":"A fox."}' });
  anthropic.script({ kind: 'answer', text: '{"summary":"A fox.","mood":"cheerful"}' });
  const config: OnejobConfig = {
    providers: {
      primary: { kind: 'simulated' },
      good: {
        kind: 'openai-compatible',
        baseUrl: openai.baseUrl,
        model: 'gpt-4o-mini',
        apiKeyEnv: 'ONEJOB_TEST_GOOD_KEY',
      },
      liar: { kind: 'anthropic', baseUrl: anthropic.baseUrl, model: 'claude-sonnet-4-5' },
    },
    operations: {
      summarize: {
        kind: 'inference.chat',
        providers: ['primary', 'good', 'liar'],
        effect: 'pure',
        prompt: { user: 'Summarize: {{text}}' },
        outputSchema: {
          type: 'object',
          required: ['summary'],
          additionalProperties: false,
          properties: { summary: { type: 'string' } },
        },
        contract: { fixtures: [{ input: { text: 'The quick brown fox.' } }], temperature: 0 },
      },
    },
  };
  configFile = join(await mkdtemp(join(tmpdir(), 'onejob-providers-cli-')), 'config.json');
  await writeFile(configFile, JSON.stringify(config));
});
afterAll(async () => {
  await Promise.all([openai?.close(), anthropic?.close(), db?.drop()]);
});

const env = () => ({ DATABASE_URL: db.url, ONEJOB_TEST_GOOD_KEY: 'sk-good', LOG_LEVEL: 'warn' });

describe('onejob providers', () => {
  it('verify exits 0 for an honest provider and 1 for a liar, naming the check; list shows the matrix', async () => {
    const good = spawnOnejob(
      ['providers', 'verify', 'good', '--operation', 'summarize', '--config', configFile],
      env(),
    );
    const liar = spawnOnejob(
      ['providers', 'verify', 'liar', '--operation', 'summarize', '--config', configFile],
      env(),
    );
    const [goodExit, liarExit] = await Promise.all([good.exited, liar.exited]);
    expect(goodExit, good.output()).toBe(0);
    expect(good.output()).toMatch(/ok {3}round_trip/);
    expect(good.output()).toContain('verified: good honoured the contract of summarize');
    expect(openai.requests[0]?.headers.authorization).toBe('Bearer sk-good');
    expect(liarExit, liar.output()).toBe(1);
    expect(liar.output()).toMatch(
      /FAIL output_contract +the output breaks the contract: \/mood is not allowed by the output schema/,
    );

    const list = spawnOnejob(['providers', 'list', '--json', '--config', configFile], env());
    expect(await list.exited, list.output()).toBe(0);
    const { items } = JSON.parse(list.output().slice(list.output().indexOf('{'))) as {
      items: {
        name: string;
        operations: { operation: string; status: string; failoverAllowed: boolean }[];
      }[];
    };
    const status = Object.fromEntries(items.map((p) => [p.name, p.operations[0]?.status]));
    expect(status).toEqual({ primary: 'never', good: 'verified', liar: 'failed' });
  });
});
