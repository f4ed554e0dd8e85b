import { describe, expect, it } from 'vitest';
import type { OpenAiProviderConfig, ProviderConfig } from '../../src/config/types.js';
import { checkOutput } from '../../src/providers/inference/checkOutput.js';
import { checkTokenizer } from '../../src/providers/inference/checkTokenizer.js';
import { inferenceCost } from '../../src/providers/inference/inferenceCost.js';
import { checkRules, ruleProblems } from '../../src/providers/inference/outputRules.js';
import {
  promptInputProblems,
  renderPrompt,
  templateVariables,
} from '../../src/providers/inference/renderPrompt.js';

const gpt: OpenAiProviderConfig = {
  kind: 'openai-compatible',
  baseUrl: 'http://127.0.0.1:1/v1',
  model: 'gpt-4o-mini',
};
const claude: ProviderConfig = {
  kind: 'anthropic',
  baseUrl: 'http://127.0.0.1:1',
  model: 'claude-sonnet-4-5',
};

describe('prompt templates', () => {
  it('fills every {{variable}} from the input, once, without re-expanding values', () => {
    const t = { system: 'You are {{role}}.', user: 'Summarize {{ doc.title }}: {{text}} ({{n}}, {{tags}})' };
    expect(templateVariables(t)).toEqual(['role', 'doc.title', 'text', 'n', 'tags']);
    expect(
      renderPrompt(t, { role: 'terse', doc: { title: 'T' }, text: '{{role}}', n: 3, tags: ['a'] }),
    ).toEqual({
      system: 'You are terse.',
      user: 'Summarize T: {{role}} (3, ["a"])',
    });
  });

  it('names every missing or null variable with its input pointer', () => {
    expect(promptInputProblems({ user: '{{a}} {{b.c}} {{d}}' }, { a: 'x', b: {}, d: null })).toEqual([
      { path: '/input/b/c', message: 'is required by the prompt template ({{b.c}})' },
      { path: '/input/d', message: 'is required by the prompt template ({{d}})' },
    ]);
  });
});

describe('business rules', () => {
  const rules = [
    { path: '/summary', maxLength: 5, required: true },
    { path: '/score', min: 0, max: 1 },
    { path: '/lang', in: ['en', 'fr'] },
    { path: '/summary', notMatches: '^as an ai', flags: 'i' },
    { path: '/tags', minLength: 1 },
  ];

  it('passes a value that honours every rule and skips rules on absent optional values', () => {
    expect(checkRules(rules, { summary: 'ok', score: 1, lang: 'fr' })).toEqual([]);
  });

  it('reports each broken rule with its path', () => {
    const violations = checkRules(rules, { summary: 'As an AI model', score: 1.5, lang: 'de', tags: [] });
    expect(violations.map((v) => `${v.path} ${v.rule}`)).toEqual([
      '/summary maxLength',
      '/score max',
      '/lang in',
      '/summary notMatches',
      '/tags minLength',
    ]);
    expect(checkRules(rules, {})).toEqual([{ path: '/summary', rule: 'required', message: 'is missing' }]);
  });

  it('counts string length in characters, not UTF-16 units', () => {
    expect(checkRules([{ path: '/s', maxLength: 2 }], { s: '😀😀' })).toEqual([]);
  });

  it('a bad regular expression is reported before it is used', () => {
    expect(ruleProblems([{ path: '/s', matches: '(' }])).toHaveLength(1);
  });
});

describe('output contract', () => {
  const contract = {
    outputSchema: {
      type: 'object',
      required: ['summary'],
      additionalProperties: false,
      properties: { summary: { type: 'string' } },
    },
    rules: [{ path: '/summary', maxLength: 10 }],
  };
  it('lists schema and rule violations together, keeping the parsed output', () => {
    const checked = checkOutput(contract, '{"summary":"far too long a summary","extra":1}');
    expect(checked.ok).toBe(false);
    if (checked.ok) return;
    expect(checked.violations.map((v) => `${v.kind} ${v.path}`)).toEqual(['schema /extra', 'rule /summary']);
    expect(checked.rejectedOutput).toEqual({ summary: 'far too long a summary', extra: 1 });
  });
  it('a code fence around the JSON is not JSON', () => {
    expect(checkOutput(contract, '```json\n{"summary":"x"}\n```')).toMatchObject({
      ok: false,
      violations: [{ kind: 'json' }],
    });
  });
});

describe('tokenizer checks', () => {
  it('a plain prompt round-trips through o200k_base and fits the known window of gpt-4o-mini', async () => {
    const check = await checkTokenizer(gpt, { system: 'Answer in JSON.', user: 'Summarize: the fox.' });
    expect(check.passed).toBe(true);
    expect(check.evidence).toMatchObject({ tokenizer: 'o200k_base', contextWindow: 128_000 });
    expect(check.evidence.promptTokens).toBeGreaterThan(5);
  });

  it('<|endoftext|> in user input fails the round trip and the reason names the special token', async () => {
    const check = await checkTokenizer(gpt, { user: 'Summarize: hello <|endoftext|> world' });
    expect(check.passed).toBe(false);
    expect(check.reason).toContain('"<|endoftext|>"');
    expect(check.reason).toContain('special (control) token of o200k_base');
    expect(check.evidence.roundTrip).toEqual([
      { part: 'user', identical: false, detail: expect.stringContaining('at character 17') },
    ]);
  });

  it('an unpaired surrogate fails the round trip', async () => {
    const check = await checkTokenizer(gpt, { user: 'broken \ud800 text' });
    expect(check.passed).toBe(false);
    expect(check.reason).toContain('unpaired UTF-16 surrogate');
  });

  it('Claude normalises to NFKC, so full-width text does not survive; plain text does', async () => {
    expect((await checkTokenizer(claude, { user: 'plain text' })).passed).toBe(true);
    const check = await checkTokenizer(claude, { user: 'Ｈｅｌｌｏ' });
    expect(check.passed).toBe(false);
    expect(check.reason).toContain('NFKC');
    const special = await checkTokenizer(claude, { user: 'a <EOT> b' });
    expect(special.reason).toContain('"<EOT>"');
  });

  it('a prompt over the context window fails with the counts', async () => {
    const check = await checkTokenizer(
      { ...gpt, contextWindow: 10 },
      { user: 'one two three four five six seven eight nine ten eleven' },
    );
    expect(check.passed).toBe(false);
    expect(check.reason).toMatch(/needs \d+ tokens, over the context window of 10/);
  });

  it('an unknown tokenizer fails unless the config waives the check, and the report says which', async () => {
    const llama = {
      kind: 'openai-compatible' as const,
      baseUrl: 'http://127.0.0.1:1/v1',
      model: 'llama-3.1-8b',
    };
    const failed = await checkTokenizer(llama, { user: 'x' });
    expect(failed).toMatchObject({ passed: false, waived: false });
    expect(failed.reason).toContain('no known tokenizer for model llama-3.1-8b');
    const waived = await checkTokenizer({ ...llama, waiveTokenizerCheck: true }, { user: 'x' });
    expect(waived).toMatchObject({ passed: true, waived: true });
    expect(waived.reason).toContain('waives the check');
  });
});

describe('cost', () => {
  it('is tokens times per-million prices plus the per-call price, in micro-units; undefined without prices', () => {
    expect(
      inferenceCost(
        { inputPerMillionMicros: 3_000_000, outputPerMillionMicros: 15_000_000, perCallMicros: 5 },
        { inputTokens: 1000, outputTokens: 100 },
      ),
    ).toBe(4505);
    expect(inferenceCost(undefined, { inputTokens: 1 })).toBeUndefined();
  });
});
