// Anthropic's stop reasons.
import { finishReasons } from '../finishReasons.js';
import type { AnthropicStopReason } from './anthropicTypes.js';

export const ANTHROPIC_FINISH = finishReasons<AnthropicStopReason>({
  stop: 'end_turn',
  stop_sequence: 'stop_sequence',
  length: 'max_tokens',
  content_filter: 'refusal',
});
