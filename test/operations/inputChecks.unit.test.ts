// Intake's extra input checks by operation kind come from one explicit list given to the
// registry when it is built, so whether an input is checked never depends on which
// provider modules happened to be imported first. This file imports the registry and
// that list only: no adapter, no engine module that could register anything on the side.
import { describe, expect, it } from 'vitest';
import { operationSchema } from '../../src/config/configSchema.js';
import type { OnejobConfig, OperationConfig } from '../../src/config/types.js';
import { operationInputChecks } from '../../src/operations/operationInputChecks.js';
import { OperationRegistry } from '../../src/operations/operationRegistry.js';

const summarize = {
  kind: 'inference.chat',
  providers: ['sim'],
  prompt: { user: 'Summarize {{ticket.text}} for {{customer}}' },
} as OperationConfig;

const config = {
  providers: { sim: { kind: 'simulated' } },
  operations: { summarize },
} as unknown as OnejobConfig;

describe('input checks by operation kind', () => {
  it('a registry built from the list refuses an input missing a prompt variable, with only the registry imported', () => {
    const registry = new OperationRegistry({ config, inputChecks: operationInputChecks });
    expect(registry.get('summarize')?.checkInput({ customer: 'Ada' })).toEqual([
      { path: '/input/ticket/text', message: 'is required by the prompt template ({{ticket.text}})' },
    ]);
    expect(registry.get('summarize')?.checkInput({ customer: 'Ada', ticket: { text: 'hi' } })).toEqual([]);
  });

  it('every operation kind the config allows, but http (input sent as it is), has its check in the list', () => {
    const kinds = operationSchema.properties.kind.enum.filter((kind) => kind !== 'http');
    expect(kinds.length).toBeGreaterThan(0);
    expect(kinds.filter((kind) => !operationInputChecks.has(kind))).toEqual([]);
  });

  it('a registry given no checks applies none: the list is the only source of them', () => {
    const registry = new OperationRegistry({ config, inputChecks: new Map() });
    expect(registry.get('summarize')?.checkInput({})).toEqual([]);
  });
});
