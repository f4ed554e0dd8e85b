// The normalised request is a compat job's identity: what the SDKs send must map to it
// faithfully, labels must not change it, and whatever cannot be carried is refused by name.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { normalizeAnthropicRequest } from '../../src/compat/anthropic/normalizeAnthropicRequest.js';
import { callDeadlineMs } from '../../src/compat/callDeadline.js';
import { normalizeOpenAiRequest } from '../../src/compat/openai/normalizeOpenAiRequest.js';
import { streamPieces } from '../../src/compat/streamPieces.js';
import { validateConfig } from '../../src/engine/loadConfig.js';
import { isOnejobError } from '../../src/errors/OnejobError.js';

function refusedParam(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    if (isOnejobError(error, 'request_invalid')) return error.extra?.param as string;
    throw error;
  }
  throw new Error('the request was accepted');
}

describe('OpenAI requests', () => {
  const base = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] };

  it('leading system and developer messages become the system prompt; text parts join', () => {
    const { request } = normalizeOpenAiRequest({
      ...base,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'developer', content: [{ type: 'text', text: 'No emoji.' }] },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'a' },
            { type: 'text', text: 'b' },
          ],
        },
      ],
      max_completion_tokens: 20,
      stop: 'END',
    });
    expect(request).toEqual({
      system: 'Be brief.\n\nNo emoji.',
      messages: [{ role: 'user', content: 'a\nb' }],
      maxTokens: 20,
      stop: ['END'],
    });
  });

  it('stream, stream options and labels are not part of the identity', () => {
    const plain = normalizeOpenAiRequest(base).request;
    const streamed = normalizeOpenAiRequest({
      ...base,
      stream: true,
      stream_options: { include_usage: true },
      user: 'u-1',
      metadata: { a: '1' },
    });
    expect(streamed.request).toEqual(plain);
    expect(streamed.stream).toBe(true);
    expect(streamed.includeUsage).toBe(true);
  });

  it.each([
    ['tools', { tools: [{ type: 'function', function: { name: 'f' } }] }, 'tools'],
    ['several choices', { n: 2 }, 'n'],
    ['an unknown key', { seed: 1 }, 'seed'],
    [
      'an image part',
      { messages: [{ role: 'user', content: [{ type: 'image_url', image_url: {} }] }] },
      'messages[0].content[0]',
    ],
    [
      'a tool message',
      { messages: [{ role: 'tool', content: 'x', tool_call_id: 'c' }] },
      'messages[0].tool_call_id',
    ],
    [
      'a late system message',
      {
        messages: [
          { role: 'user', content: 'a' },
          { role: 'system', content: 'b' },
        ],
      },
      'messages[1].role',
    ],
    ['a temperature out of range', { temperature: 3 }, 'temperature'],
  ])('refuses %s, naming the parameter', (_name, extra, param) => {
    expect(refusedParam(() => normalizeOpenAiRequest({ ...base, ...extra }))).toBe(param);
  });
});

describe('Anthropic requests', () => {
  const base = { model: 'claude-sonnet-4-5', max_tokens: 50, messages: [{ role: 'user', content: 'Hi' }] };

  it('system blocks and cache_control: the text is kept, the pricing hint is not', () => {
    const { request } = normalizeAnthropicRequest({
      ...base,
      system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }],
      stop_sequences: ['END'],
    });
    expect(request).toEqual({
      system: 'Be brief.',
      messages: [{ role: 'user', content: 'Hi' }],
      maxTokens: 50,
      stop: ['END'],
    });
  });

  it.each([
    ['no max_tokens', { max_tokens: undefined }, 'max_tokens'],
    ['tools', { tools: [] }, 'tools'],
    ['top_k', { top_k: 5 }, 'top_k'],
    [
      'an image block',
      { messages: [{ role: 'user', content: [{ type: 'image', source: {} }] }] },
      'messages[0].content[0]',
    ],
  ])('refuses %s, naming the parameter', (_name, extra, param) => {
    expect(refusedParam(() => normalizeAnthropicRequest({ ...base, ...extra }))).toBe(param);
  });
});

describe('streams and deadlines', () => {
  it('stream pieces join to the text exactly, word by word', () => {
    const text = 'Hello,  world!\nA second line ✓ 😀 end ';
    const pieces = streamPieces(text);
    expect(pieces.join('')).toBe(text);
    expect(pieces.length).toBeGreaterThan(4);
    expect(streamPieces(text)).toEqual(pieces);
  });

  it('a call answers before the deadline the SDK announced, and never waits past maxWaitMs', () => {
    const settings = { waitMs: 60_000, maxWaitMs: 600_000 };
    expect(callDeadlineMs(undefined, settings)).toBe(60_000);
    expect(callDeadlineMs('2', settings)).toBe(1_800);
    expect(callDeadlineMs('600', settings)).toBe(599_000);
    expect(callDeadlineMs('3600', settings)).toBe(600_000);
    expect(callDeadlineMs('0', settings)).toBe(0);
    expect(callDeadlineMs('soon', settings)).toBe(60_000);
  });
});

describe('docs/compat.md', () => {
  it('its example config loads', () => {
    const doc = readFileSync(new URL('../../docs/compat.md', import.meta.url), 'utf8');
    const json = /```json\n([\s\S]*?)\n```/.exec(doc)?.[1];
    const env = { OPENAI_API_KEY: 'sk-test', ANTHROPIC_API_KEY: 'sk-ant-test' };
    const config = validateConfig(JSON.parse(json ?? 'null'), 'docs/compat.md', env);
    expect(Object.keys(config.compat?.models ?? {})).toEqual(['gpt-4o-mini', 'claude-sonnet-4-5']);
  });
});
