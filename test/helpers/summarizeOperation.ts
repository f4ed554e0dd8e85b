import type { OperationConfig } from '../../src/config/types.js';

/**
 * The tests' summarize operation: chat inference on `sim-a`, then `sim-b`, answering a
 * summary of at most 30 characters, with one contract fixture; `extra` adds to it.
 */
export function summarizeOperation(extra: Partial<OperationConfig> = {}): OperationConfig {
  return {
    kind: 'inference.chat',
    providers: ['sim-a', 'sim-b'],
    effect: 'pure',
    attemptTimeoutMs: 5_000,
    prompt: { user: 'Summarize: {{text}}' },
    outputSchema: {
      type: 'object',
      required: ['summary'],
      additionalProperties: false,
      properties: { summary: { type: 'string', maxLength: 30 } },
    },
    contract: { fixtures: [{ input: { text: 'The quick brown fox.' } }], temperature: 0 },
    ...extra,
  } as OperationConfig;
}
