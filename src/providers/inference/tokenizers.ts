// Which tokenizer reads a provider's prompts, and the model's context window.
// OpenAI model families use gpt-tokenizer (the tiktoken encodings); Claude models use
// @anthropic-ai/tokenizer. Anything else is unknown: we do not guess.
import { getTokenizer as getClaudeTokenizer } from '@anthropic-ai/tokenizer';
import { modelToEncodingMap } from 'gpt-tokenizer/mapping';
import * as openAiModels from 'gpt-tokenizer/models';
import type { ProviderConfig } from '../../config/types.js';

export const OPENAI_ENCODINGS = [
  'o200k_base',
  'o200k_harmony',
  'cl100k_base',
  'p50k_base',
  'p50k_edit',
  'r50k_base',
] as const;
export type TokenizerName = (typeof OPENAI_ENCODINGS)[number] | 'claude';

export interface Tokenizer {
  name: TokenizerName;
  /** Throws when the text holds a special token the tokenizer refuses to read as text. */
  encode(text: string): number[];
  decode(tokens: number[]): string;
  /** What the tokenizer does to the text before encoding (Claude: NFKC), if anything. */
  normalize?: (text: string) => string;
  /** A caveat the report repeats, e.g. that counts are approximate for a model family. */
  note?: string;
}

export interface TokenizerChoice {
  tokenizer: TokenizerName | undefined;
  /** Why this tokenizer (or why none): config, model family, or unknown. */
  reason: string;
  contextWindow: number | undefined;
  contextWindowSource: string;
}

const CLAUDE_CONTEXT_WINDOW = 200_000;

function modelSpec(model: string): { context_window?: number } | undefined {
  const spec = (openAiModels as Record<string, unknown>)[model];
  return typeof spec === 'object' && spec !== null ? (spec as { context_window?: number }) : undefined;
}

/** The OpenAI model name gpt-tokenizer knows for `model` (dated snapshots fall back to their family). */
function knownOpenAiModel(model: string): string | undefined {
  if (modelSpec(model) || Object.hasOwn(modelToEncodingMap, model)) return model;
  const family = model.replace(/-\d{4}-\d{2}-\d{2}$/, '');
  if (family !== model && (modelSpec(family) || Object.hasOwn(modelToEncodingMap, family))) return family;
  return undefined;
}

export function chooseTokenizer(config: ProviderConfig): TokenizerChoice {
  if (config.kind !== 'openai-compatible' && config.kind !== 'anthropic') {
    return {
      tokenizer: undefined,
      reason: `provider kind ${config.kind} has no tokenizer`,
      contextWindow: undefined,
      contextWindowSource: 'none',
    };
  }
  const model = config.model;
  let tokenizer: TokenizerName | undefined;
  let reason: string;
  if (config.tokenizer) {
    const named = config.tokenizer;
    if (named === 'claude' || (OPENAI_ENCODINGS as readonly string[]).includes(named)) {
      tokenizer = named as TokenizerName;
      reason = `tokenizer ${named} named in the provider config`;
    } else {
      reason = `tokenizer "${named}" named in the provider config is not one onejob has (${[...OPENAI_ENCODINGS, 'claude'].join(', ')})`;
    }
  } else if (/^claude-/.test(model)) {
    tokenizer = 'claude';
    reason = `model ${model} is a Claude model`;
  } else {
    const known = knownOpenAiModel(model);
    if (known) {
      tokenizer = (modelToEncodingMap as Record<string, TokenizerName>)[known] ?? 'o200k_base';
      reason = `model ${model} is an OpenAI model using ${tokenizer}`;
    } else {
      reason = `no known tokenizer for model ${model}; name one with "tokenizer" or set "waiveTokenizerCheck": true`;
    }
  }
  let contextWindow = config.contextWindow;
  let contextWindowSource = 'provider config contextWindow';
  if (contextWindow === undefined) {
    const known = knownOpenAiModel(model);
    const fromSpec = known ? modelSpec(known)?.context_window : undefined;
    if (fromSpec) {
      contextWindow = fromSpec;
      contextWindowSource = `known window of ${known}`;
    } else if (/^claude-/.test(model)) {
      contextWindow = CLAUDE_CONTEXT_WINDOW;
      contextWindowSource = 'default window of Claude models';
    } else {
      contextWindowSource = 'unknown; set contextWindow in the provider config';
    }
  }
  return { tokenizer, reason, contextWindow, contextWindowSource };
}

const loaded = new Map<TokenizerName, Promise<Tokenizer>>();

async function loadOpenAi(name: (typeof OPENAI_ENCODINGS)[number]): Promise<Tokenizer> {
  // Each encoding module carries its whole rank table: load only the ones in use.
  const mod =
    name === 'o200k_base'
      ? await import('gpt-tokenizer/encoding/o200k_base')
      : name === 'o200k_harmony'
        ? await import('gpt-tokenizer/encoding/o200k_harmony')
        : name === 'cl100k_base'
          ? await import('gpt-tokenizer/encoding/cl100k_base')
          : name === 'p50k_base'
            ? await import('gpt-tokenizer/encoding/p50k_base')
            : name === 'p50k_edit'
              ? await import('gpt-tokenizer/encoding/p50k_edit')
              : await import('gpt-tokenizer/encoding/r50k_base');
  // The default options refuse every special token in the text, which is what we want
  // to learn: a provider would read `<|endoftext|>` in user input as a control token.
  return { name, encode: (text) => mod.encode(text), decode: (tokens) => mod.decode(tokens) };
}

function loadClaude(): Tokenizer {
  const claude = getClaudeTokenizer();
  const utf8 = new TextDecoder('utf-8', { fatal: false });
  return {
    name: 'claude',
    normalize: (text) => text.normalize('NFKC'),
    encode: (text) => [...claude.encode(text.normalize('NFKC'))],
    decode: (tokens) => utf8.decode(claude.decode(Uint32Array.from(tokens))),
    note: '@anthropic-ai/tokenizer is the published Claude tokenizer; newer Claude models count tokens differently, so the count is an estimate',
  };
}

export function loadTokenizer(name: TokenizerName): Promise<Tokenizer> {
  let tokenizer = loaded.get(name);
  if (!tokenizer) {
    tokenizer = name === 'claude' ? Promise.resolve(loadClaude()) : loadOpenAi(name);
    loaded.set(name, tokenizer);
  }
  return tokenizer;
}
