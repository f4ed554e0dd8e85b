// OpenAI's finish reasons: a stop sequence is a `stop` there.
import { finishReasons } from '../finishReasons.js';
import type { OpenAiFinishReason } from './openaiTypes.js';

export const OPENAI_FINISH = finishReasons<OpenAiFinishReason>({
  stop: 'stop',
  stop_sequence: 'stop',
  length: 'length',
  content_filter: 'content_filter',
});
