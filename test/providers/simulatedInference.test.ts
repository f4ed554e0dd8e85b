// The simulated provider on inference operations: the same contract as a real model,
// so the quick start can show a verified failover with no network at all.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OperationConfig } from '../../src/config/types.js';
import { operationFromConfig } from '../../src/operations/operationRegistry.js';
import { sampleFromSchema } from '../../src/providers/inference/simulateInference.js';
import { createSimulatedProvider } from '../../src/providers/simulatedProvider.js';
import { verifyProvider } from '../../src/providers/verification/verifyProvider.js';
import { configWith, createJob, jobInState } from '../attempts/attemptTestKit.js';
import { startTestApp, type TestApp } from '../helpers/startTestApp.js';
import { summarizeOperation } from '../helpers/summarizeOperation.js';

const summarize = summarizeOperation({
  hedgeAfterMs: 100,
  maxAttempts: 2,
  rules: [{ path: '/summary', minLength: 1 }],
});

const call = (op: OperationConfig, input: Record<string, unknown>) => ({
  jobId: 'j',
  attemptId: 'a',
  attempt: 1,
  operation: operationFromConfig('summarize', op),
  input,
  idempotencyKey: 'k',
  signal: new AbortController().signal,
});

describe('simulated inference', () => {
  it('answers with a value made from the output schema, with estimated usage and its price', async () => {
    const sim = createSimulatedProvider('sim', {
      kind: 'simulated',
      prices: { inputPerMillionMicros: 1_000_000, outputPerMillionMicros: 1_000_000 },
    });
    const outcome = await sim.call(call(summarize, { text: 'A fox.' }));
    expect(outcome).toMatchObject({ kind: 'success', result: { summary: 'simulated summary of: A fox.' } });
    expect(outcome.usage?.inputTokens).toBeGreaterThan(0);
    expect(outcome.costMicros).toBe((outcome.usage?.inputTokens ?? 0) + (outcome.usage?.outputTokens ?? 0));
    expect(
      sampleFromSchema({
        type: 'object',
        required: ['n', 'tags', 'lang'],
        properties: {
          n: { type: 'integer', minimum: 3 },
          tags: { type: 'array', minItems: 1, items: { type: 'string' } },
          lang: { enum: ['fr', 'en'] },
        },
      }),
    ).toEqual({ n: 3, tags: ['simulated tags'], lang: 'fr' });
  });

  it('a scripted output with a hallucinated key is an output_contract_violation, like a real model', async () => {
    const sim = createSimulatedProvider('sim', {
      kind: 'simulated',
      script: [{ output: { summary: 'ok', mood: 'happy' } }, { output: 'Here you go: {}' }],
    });
    expect(await sim.call(call(summarize, { text: 'x' }))).toMatchObject({
      kind: 'failure',
      error: { code: 'output_contract_violation' },
      rejectedOutput: { summary: 'ok', mood: 'happy' },
    });
    expect(await sim.call(call(summarize, { text: 'x' }))).toMatchObject({
      kind: 'failure',
      error: { code: 'output_contract_violation' },
      rejectedOutput: 'Here you go: {}',
    });
  });

  describe('through the engine', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp({
        config: configWith(
          {
            'sim-a': { kind: 'simulated', script: [{ outcome: 'timeout' }] },
            'sim-b': { kind: 'simulated', latencyMs: 10 },
          },
          { summarize },
          { leaseMs: 1_000, pollMs: 20, graceMs: 500 },
        ),
      });
      t.onejob.attempts.startWorker();
    });
    afterAll(async () => t?.close());

    it('a silent simulated primary fails over to the verified simulated backup, offline', async () => {
      const report = await verifyProvider(t.onejob, 'sim-b', 'summarize');
      expect(report.passed).toBe(true);
      expect(report.fixtures[0]!.checks.find((c) => c.name === 'tokenizer')).toMatchObject({
        status: 'not_applicable',
      });
      const job = await createJob(t, 'offline-1', 'summarize', { text: 'A fox.' });
      const done = await jobInState(t, job.id, 'succeeded');
      expect(done.result).toEqual({ summary: 'simulated summary of: A fox.' });
      expect(done.attempts.find((a) => a.id === done.completedBy)).toMatchObject({ provider: 'sim-b' });
    });
  });
});
