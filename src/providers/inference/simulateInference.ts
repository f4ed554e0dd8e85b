// The simulated provider answering an inference.chat operation: the prompt is rendered
// (so a missing variable fails as it would for a real model), the scripted output (or one
// made from the output schema) is held to the same contract as a real model's answer,
// and token usage is estimated from the text so hedging shows a cost offline.
import type { JsonSchema, Prices } from '../../config/types.js';
import type { ProviderCall, ProviderOutcome } from '../types.js';
import { answerOutcome, prepareChat } from './chatOutcome.js';
import { promptText } from './renderPrompt.js';

/** A small value that satisfies common schemas: required properties, first enum value, minimums. */
export function sampleFromSchema(schema: JsonSchema | undefined, name = 'value', hint = ''): unknown {
  if (!schema) return { [name]: `simulated ${name}` };
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length) return schema.enum[0];
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
      const required = (schema.required ?? Object.keys(properties)) as string[];
      return Object.fromEntries(required.map((key) => [key, sampleFromSchema(properties[key], key, hint)]));
    }
    case 'array':
      return Array.from({ length: Number(schema.minItems ?? 0) }, () =>
        sampleFromSchema(schema.items as JsonSchema | undefined, name, hint),
      );
    case 'integer':
    case 'number':
      return Number(schema.minimum ?? 0);
    case 'boolean':
      return false;
    case 'null':
      return null;
    default: {
      const text = `simulated ${name}${hint ? ` of: ${hint}` : ''}`;
      const max = typeof schema.maxLength === 'number' ? schema.maxLength : 200;
      return [...text].slice(0, max).join('');
    }
  }
}

/** Roughly four characters per token: enough to make simulated costs visible. */
const tokens = (text: string) => Math.max(1, Math.ceil(text.length / 4));

export function simulateInference(
  name: string,
  call: ProviderCall,
  scripted: unknown,
  prices: Prices | undefined,
): ProviderOutcome {
  const prepared = prepareChat(call, name);
  if (!prepared.ok) return prepared.outcome;
  const hint = String(Object.values(call.input).find((v) => typeof v === 'string') ?? '').slice(0, 60);
  const output =
    scripted !== undefined ? scripted : sampleFromSchema(prepared.config.outputSchema, 'value', hint);
  // Scripted text is the model's raw answer (prose, broken JSON); anything else is encoded.
  const text = typeof output === 'string' ? output : JSON.stringify(output);
  return answerOutcome(
    prepared.config,
    text,
    { inputTokens: tokens(promptText(prepared.prompt)), outputTokens: tokens(text) },
    prices,
  );
}
