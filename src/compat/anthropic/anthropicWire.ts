// The Anthropic wire in one object: what @anthropic-ai/sdk sends and is answered with
// (normalizeAnthropicRequest, anthropicAnswer), and what Anthropic providers are sent and
// answer (anthropicUpstream).
import type { WireFormat } from '../wire.js';
import { anthropicAnswer } from './anthropicAnswer.js';
import { anthropicUpstream } from './anthropicUpstream.js';
import { normalizeAnthropicRequest } from './normalizeAnthropicRequest.js';

export const anthropicWire: WireFormat = {
  name: 'anthropic',
  normalize: normalizeAnthropicRequest,
  ...anthropicAnswer,
  ...anthropicUpstream,
};
