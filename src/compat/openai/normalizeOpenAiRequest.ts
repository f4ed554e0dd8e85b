// A Chat Completions request body, as the openai SDK sends it, to the normalised request.
// What cannot be carried to every provider faithfully (tools, images, several choices)
// is refused with the parameter's name, never dropped.
import type { ChatMessage, ChatRequest, ParsedCall, ResponseFormat } from '../chatRequest.js';
import {
  invalid,
  isObject,
  optionalInteger,
  optionalNumber,
  refuseUnknown,
  textContent,
  unsupported,
} from '../requestProblems.js';
import type { OpenAiChatRequest } from './openaiTypes.js';

// `user`, `metadata`, `store` and `service_tier` label or route a call; they change no token of its answer.
const IGNORED = ['user', 'metadata', 'store', 'service_tier'];
const CARRIED: readonly (keyof OpenAiChatRequest)[] = [
  'model',
  'messages',
  'stream',
  'stream_options',
  'temperature',
  'top_p',
  'max_tokens',
  'max_completion_tokens',
  'stop',
  'response_format',
  'n',
];
const KNOWN = new Set<string>([...CARRIED, ...IGNORED]);
const MESSAGE_KEYS = new Set(['role', 'content']);

function messagesOf(value: unknown): { system?: string; messages: ChatMessage[] } {
  if (!Array.isArray(value) || value.length === 0) throw invalid('messages', 'must be a non-empty array');
  const system: string[] = [];
  const messages: ChatMessage[] = [];
  value.forEach((raw, i) => {
    const param = `messages[${i}]`;
    if (!isObject(raw)) throw invalid(param, 'must be an object');
    refuseUnknown(raw, MESSAGE_KEYS, `${param}.`);
    const role = raw.role;
    const content = textContent(raw.content, `${param}.content`);
    if (role === 'system' || role === 'developer') {
      // Anthropic takes one system prompt ahead of the conversation; a later one has no place there.
      if (messages.length > 0)
        throw unsupported(`${param}.role`, `a ${role} message after the conversation has started`);
      system.push(content);
    } else if (role === 'user' || role === 'assistant') messages.push({ role, content });
    else throw unsupported(`${param}.role`, `role ${JSON.stringify(role)} (tool calls are not carried)`);
  });
  if (messages.length === 0) throw invalid('messages', 'must hold at least one user message');
  return { ...(system.length ? { system: system.join('\n\n') } : {}), messages };
}

function responseFormatOf(value: unknown): ResponseFormat | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isObject(value)) throw invalid('response_format', 'must be an object');
  if (value.type === 'text') return undefined;
  if (value.type === 'json_object') return { type: 'json_object' };
  if (value.type === 'json_schema' && isObject(value.json_schema))
    return { type: 'json_schema', json_schema: value.json_schema };
  throw invalid('response_format', 'must be of type text, json_object or json_schema');
}

function stopOf(value: unknown): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  const list = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(list) || list.length > 4 || !list.every((s) => typeof s === 'string' && s.length > 0))
    throw invalid('stop', 'must be a string or up to 4 strings');
  return list as string[];
}

/** Reads an `OpenAiChatRequest`; throws `request_invalid` (400) naming the first parameter onejob cannot carry. */
export function normalizeOpenAiRequest(body: unknown): ParsedCall {
  if (!isObject(body)) throw invalid('body', 'must be a JSON object');
  refuseUnknown(body, KNOWN);
  if (typeof body.model !== 'string' || body.model.length === 0) throw invalid('model', 'is required');
  if (body.n !== undefined && body.n !== null && body.n !== 1)
    throw unsupported('n', 'one job answers with one choice');
  if (body.stream !== undefined && body.stream !== null && typeof body.stream !== 'boolean')
    throw invalid('stream', 'must be a boolean');
  const streamOptions = body.stream_options;
  if (streamOptions !== undefined && streamOptions !== null && !isObject(streamOptions))
    throw invalid('stream_options', 'must be an object');
  const maxTokens = optionalInteger(body, 'max_completion_tokens') ?? optionalInteger(body, 'max_tokens');
  const temperature = optionalNumber(body, 'temperature', 0, 2);
  const topP = optionalNumber(body, 'top_p', 0, 1);
  const stop = stopOf(body.stop);
  const responseFormat = responseFormatOf(body.response_format);
  const request: ChatRequest = {
    ...messagesOf(body.messages),
    ...(maxTokens !== undefined ? { maxTokens } : {}),
    ...(temperature !== undefined ? { temperature } : {}),
    ...(topP !== undefined ? { topP } : {}),
    ...(stop ? { stop } : {}),
    ...(responseFormat ? { responseFormat } : {}),
  };
  return {
    model: body.model,
    stream: body.stream === true,
    includeUsage: isObject(streamOptions) && streamOptions.include_usage === true,
    request,
  };
}
