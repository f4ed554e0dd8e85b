// Does the rendered prompt survive the provider's tokenizer? Encoding then decoding must
// give the same text (no special tokens, no normalisation, no lost characters), and the
// token count must fit the model's context window.
import type { ProviderConfig } from '../../config/types.js';
import type { RenderedPrompt } from './renderPrompt.js';
import { chooseTokenizer, loadTokenizer, type Tokenizer } from './tokenizers.js';

export interface TokenizerCheck {
  passed: boolean;
  /** True when the check could not run and the provider config waived it. */
  waived: boolean;
  /** One sentence a person can act on. */
  reason: string;
  evidence: {
    tokenizer: string | null;
    tokenizerReason: string;
    promptTokens?: number;
    reservedOutputTokens?: number;
    contextWindow?: number | null;
    contextWindowSource?: string;
    roundTrip?: { part: 'system' | 'user'; identical: boolean; detail?: string }[];
    note?: string;
  };
}

const SPECIAL_TOKEN = /special token[^:]*:\s*(.+)$/i;

function excerpt(text: string, at: number): string {
  return JSON.stringify(text.slice(Math.max(0, at - 20), at + 20));
}

function firstDifference(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

/** Round trip of one part of the prompt: undefined when identical, else why not. */
function roundTrip(tokenizer: Tokenizer, text: string): { tokens: number; detail?: string } {
  let tokens: number[];
  try {
    tokens = tokenizer.encode(text);
  } catch (error) {
    const message = (error as Error).message;
    const special = SPECIAL_TOKEN.exec(message)?.[1]?.trim();
    if (special) {
      const at = text.indexOf(special);
      return {
        tokens: 0,
        detail:
          `the text contains ${JSON.stringify(special)}${at >= 0 ? ` at character ${at}` : ''}, a special (control) token of ${tokenizer.name}: ` +
          'the provider would read it as a control token (or refuse the request), not as the text the template and input say',
      };
    }
    return { tokens: 0, detail: `the tokenizer cannot encode the text: ${message}` };
  }
  const decoded = tokenizer.decode(tokens);
  if (decoded === text) return { tokens: tokens.length };
  const at = firstDifference(text, decoded);
  const normalised = tokenizer.normalize && tokenizer.normalize(text) !== text;
  return {
    tokens: tokens.length,
    detail:
      `decode(encode(text)) differs from the text at character ${at}: sent ${excerpt(text, at)}, the model reads ${excerpt(decoded, at)}` +
      (normalised ? ` (${tokenizer.name} normalises the text to NFKC before encoding)` : '') +
      (/[\uD800-\uDFFF]/.test(text)
        ? ' (the text contains an unpaired UTF-16 surrogate, which has no UTF-8 encoding)'
        : ''),
  };
}

export async function checkTokenizer(
  config: ProviderConfig,
  prompt: RenderedPrompt,
  reservedOutputTokens = 0,
): Promise<TokenizerCheck> {
  const choice = chooseTokenizer(config);
  const waivable = 'waiveTokenizerCheck' in config && config.waiveTokenizerCheck === true;
  if (!choice.tokenizer) {
    return {
      passed: waivable,
      waived: waivable,
      reason: waivable
        ? `not checked: ${choice.reason}; the provider config waives the check (waiveTokenizerCheck: true)`
        : `failed: ${choice.reason}`,
      evidence: { tokenizer: null, tokenizerReason: choice.reason },
    };
  }
  const tokenizer = await loadTokenizer(choice.tokenizer);
  const parts: { part: 'system' | 'user'; text: string }[] = [];
  if (prompt.system !== undefined) parts.push({ part: 'system', text: prompt.system });
  parts.push({ part: 'user', text: prompt.user });
  let promptTokens = 0;
  const trips = parts.map(({ part, text }) => {
    const trip = roundTrip(tokenizer, text);
    promptTokens += trip.tokens;
    return trip.detail === undefined
      ? { part, identical: true }
      : { part, identical: false, detail: trip.detail };
  });
  const evidence: TokenizerCheck['evidence'] = {
    tokenizer: tokenizer.name,
    tokenizerReason: choice.reason,
    promptTokens,
    reservedOutputTokens,
    contextWindow: choice.contextWindow ?? null,
    contextWindowSource: choice.contextWindowSource,
    roundTrip: trips,
    ...(tokenizer.note ? { note: tokenizer.note } : {}),
  };
  const broken = trips.find((t) => !t.identical);
  if (broken) {
    return {
      passed: false,
      waived: false,
      reason: `the ${broken.part} prompt does not survive the ${tokenizer.name} round trip: ${broken.detail}`,
      evidence,
    };
  }
  if (choice.contextWindow === undefined) {
    return {
      passed: false,
      waived: false,
      reason: `the context window of ${'model' in config ? config.model : 'the model'} is unknown; set contextWindow in the provider config`,
      evidence,
    };
  }
  const needed = promptTokens + reservedOutputTokens;
  if (needed > choice.contextWindow) {
    return {
      passed: false,
      waived: false,
      reason: `the prompt needs ${promptTokens} tokens${reservedOutputTokens ? ` plus ${reservedOutputTokens} reserved for output` : ''}, over the context window of ${choice.contextWindow}`,
      evidence,
    };
  }
  return {
    passed: true,
    waived: false,
    reason: `${promptTokens} prompt tokens (${tokenizer.name}) round-trip exactly and fit the window of ${choice.contextWindow}`,
    evidence,
  };
}

/** Token count of the prompt for cost estimates (for example of an aborted request), when a tokenizer is known. */
export async function countPromptTokens(
  config: ProviderConfig,
  prompt: RenderedPrompt,
): Promise<number | undefined> {
  const choice = chooseTokenizer(config);
  if (!choice.tokenizer) return undefined;
  const tokenizer = await loadTokenizer(choice.tokenizer);
  let n = 0;
  for (const text of [prompt.system, prompt.user]) {
    if (text === undefined) continue;
    try {
      n += tokenizer.encode(text).length;
    } catch {
      return undefined;
    }
  }
  return n;
}
