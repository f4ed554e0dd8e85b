// The OpenAI wire in one object: what the openai SDK sends and is answered with
// (normalizeOpenAiRequest, openaiAnswer), and what OpenAI-compatible providers are sent
// and answer (openaiUpstream).
import type { WireFormat } from '../wire.js';
import { normalizeOpenAiRequest } from './normalizeOpenAiRequest.js';
import { openAiAnswer } from './openaiAnswer.js';
import { openAiUpstream } from './openaiUpstream.js';

export const openAiWire: WireFormat = {
  name: 'openai',
  normalize: normalizeOpenAiRequest,
  ...openAiAnswer,
  ...openAiUpstream,
};
