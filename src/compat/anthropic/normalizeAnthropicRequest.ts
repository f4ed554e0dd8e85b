// A Messages request body, as the @anthropic-ai/sdk sends it, to the normalised request.
// What cannot be carried to every provider faithfully (tools, images, thinking, top_k)
// is refused with the parameter's name, never dropped.
import type { ChatMessage, ParsedCall } from '../chatRequest.js';
import {
  invalid,
  isObject,
  optionalInteger,
  optionalNumber,
  refuseUnknown,
  textContent,
} from '../requestProblems.js';
import type { AnthropicChatRequest } from './anthropicTypes.js';

const CARRIED: readonly (keyof AnthropicChatRequest)[] = [
  'model',
  'messages',
  'system',
  'max_tokens',
  'temperature',
  'top_p',
  'stop_sequences',
  'stream',
];
// `metadata` labels the call (a user id for abuse reports); it changes no token of its answer.
const KNOWN = new Set<string>([...CARRIED, 'metadata']);
const MESSAGE_KEYS = new Set(['role', 'content']);

/** Text blocks may carry `cache_control`: a pricing hint, not part of the text. */
function blocksText(value: unknown, param: string): string {
  if (!Array.isArray(value)) return textContent(value, param);
  return textContent(
    value.map((block) => {
      if (!isObject(block)) return block;
      const { cache_control: _ignored, ...rest } = block;
      return rest;
    }),
    param,
  );
}

function messagesOf(value: unknown): ChatMessage[] {
  if (!Array.isArray(value) || value.length === 0) throw invalid('messages', 'must be a non-empty array');
  return value.map((raw, i) => {
    const param = `messages[${i}]`;
    if (!isObject(raw)) throw invalid(param, 'must be an object');
    refuseUnknown(raw, MESSAGE_KEYS, `${param}.`);
    if (raw.role !== 'user' && raw.role !== 'assistant')
      throw invalid(`${param}.role`, 'must be user or assistant');
    return { role: raw.role, content: blocksText(raw.content, `${param}.content`) };
  });
}

function stopOf(value: unknown): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || !value.every((s) => typeof s === 'string' && s.length > 0))
    throw invalid('stop_sequences', 'must be an array of strings');
  return value.length ? (value as string[]) : undefined;
}

/** Reads an `AnthropicChatRequest`; throws `request_invalid` (400) naming the first parameter onejob cannot carry. */
export function normalizeAnthropicRequest(body: unknown): ParsedCall {
  if (!isObject(body)) throw invalid('body', 'must be a JSON object');
  refuseUnknown(body, KNOWN);
  if (typeof body.model !== 'string' || body.model.length === 0) throw invalid('model', 'is required');
  const maxTokens = optionalInteger(body, 'max_tokens');
  if (maxTokens === undefined) throw invalid('max_tokens', 'is required');
  if (body.stream !== undefined && body.stream !== null && typeof body.stream !== 'boolean')
    throw invalid('stream', 'must be a boolean');
  const system =
    body.system === undefined || body.system === null ? undefined : blocksText(body.system, 'system');
  const temperature = optionalNumber(body, 'temperature', 0, 1);
  const topP = optionalNumber(body, 'top_p', 0, 1);
  const stop = stopOf(body.stop_sequences);
  return {
    model: body.model,
    stream: body.stream === true,
    includeUsage: true,
    request: {
      ...(system !== undefined ? { system } : {}),
      messages: messagesOf(body.messages),
      maxTokens,
      ...(temperature !== undefined ? { temperature } : {}),
      ...(topP !== undefined ? { topP } : {}),
      ...(stop ? { stop } : {}),
    },
  };
}
