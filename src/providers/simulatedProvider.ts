// A provider that needs no network: each call waits `latencyMs` and plays the next step
// of its script (the last step repeats). The default config runs on it (its compat model
// too, so the SDK drop-in works offline), and tests script outcomes with it.
import { COMPAT_KIND } from '../compat/compatModels.js';
import type { SimulatedProviderConfig, SimulatedStep } from '../config/types.js';
import { simulateInference } from './inference/simulateInference.js';
import { simulateCompletion } from './simulatedCompletion.js';
import type { Provider, ProviderCall, ProviderOutcome } from './types.js';

function wait(ms: number, signal: AbortSignal): Promise<boolean> {
  // No latency answers in the next turn of the event loop: a timer of 0 ms waits at least
  // one millisecond in Node.js, which a zero-latency provider must not add to each call.
  if (ms <= 0) return new Promise((resolve) => setImmediate(() => resolve(!signal.aborted)));
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(false);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** What a successful simulated call returns when its step names no output. */
export function defaultSimulatedOutput(name: string, call: ProviderCall): unknown {
  return { simulated: true, provider: name, jobId: call.jobId, attempt: call.attempt };
}

export function createSimulatedProvider(name: string, config: SimulatedProviderConfig): Provider {
  const script: SimulatedStep[] = config.script?.length ? config.script : [{ outcome: 'success' }];
  const cost = config.prices?.perCallMicros !== undefined ? { costMicros: config.prices.perCallMicros } : {};
  let calls = 0;
  return {
    name,
    kind: 'simulated',
    // Nothing happens outside this process, so answering a re-send again is harmless.
    idempotent: true,
    async call(call): Promise<ProviderOutcome> {
      const step = script[Math.min(calls, script.length - 1)] ?? {};
      calls += 1;
      const outcome = step.outcome ?? 'success';
      if (outcome === 'timeout') {
        // Never answers: the engine's deadline decides, exactly as with a silent real provider.
        await wait(2 ** 31 - 1, call.signal);
        return { kind: 'unknown', error: { code: 'timeout', message: `${name} did not answer` } };
      }
      const answered = await wait(step.latencyMs ?? config.latencyMs ?? 0, call.signal);
      if (!answered)
        return { kind: 'unknown', error: { code: 'timeout', message: `${name} did not answer in time` } };
      if (outcome === 'failure') {
        return {
          kind: 'failure',
          error: { code: 'simulated_failure', message: `${name} refused the request` },
          ...cost,
        };
      }
      if (outcome === 'error') {
        return {
          kind: 'unknown',
          error: { code: 'simulated_error', message: `${name} failed after receiving the request` },
          ...cost,
        };
      }
      // A compat model's call: a chat completion, rendered by the routes in either SDK's wire format.
      if (call.operation.kind === COMPAT_KIND)
        return simulateCompletion(name, call, step.output, config.prices);
      if (call.operation.kind === 'inference.chat')
        return simulateInference(name, call, step.output, config.prices);
      return { kind: 'success', result: step.output ?? defaultSimulatedOutput(name, call), ...cost };
    },
  };
}
