// The Provider that runs code operations: one per provider name, dispatching on the
// operation of each call. It turns what `run` does into an honest outcome: a return value
// is a candidate result, a DefiniteFailure a failure, anything else unknown.
import type { Logger } from 'pino';
import type { Provider, ProviderCall, ProviderOutcome } from '../../providers/types.js';
import { isDefiniteFailure } from '../DefiniteFailure.js';
import type { AnyCodeOperation } from '../defineOperation.js';
import type { AttemptWatch } from './attemptWatch.js';

export const CODE_PROVIDER_KIND = 'code';

/**
 * Why ctx.signal fired; `ctx.signal.reason` is one of these.
 *
 * @example
 * ```ts
 * async run(ctx) {
 *   try {
 *     return await callModel(ctx.input, { signal: ctx.signal });
 *   } catch (error) {
 *     if (ctx.signal.reason instanceof AttemptAborted) ctx.logger.info(ctx.signal.reason.message);
 *     throw error;
 *   }
 * }
 * ```
 */
export class AttemptAborted extends Error {
  override name = 'AttemptAborted';
}

export function createCodeProvider(
  name: string,
  operations: ReadonlyMap<string, AnyCodeOperation>,
  watch: AttemptWatch,
  logger: Logger,
): Provider {
  const idempotent = [...operations.values()].every((op) => op.definition.idempotent === true);

  async function call(call: ProviderCall): Promise<ProviderOutcome> {
    const op = operations.get(call.operation.name);
    if (!op) {
      return {
        kind: 'failure',
        error: {
          code: 'operation_not_here',
          message: `provider ${name} runs no operation ${call.operation.name}`,
        },
      };
    }
    const controller = new AbortController();
    const abort = (reason: string) => {
      if (!controller.signal.aborted) controller.abort(new AttemptAborted(reason));
    };
    const timer = setTimeout(
      () => abort(`no answer within attemptTimeoutMs (${call.operation.attemptTimeoutMs} ms)`),
      call.operation.attemptTimeoutMs,
    );
    const onOuter = () =>
      abort(String((call.signal.reason as Error | undefined)?.message ?? 'the worker aborted the call'));
    if (call.signal.aborted) onOuter();
    else call.signal.addEventListener('abort', onOuter, { once: true });
    const unwatch = watch.watch(call.attemptId, abort);
    const log = logger.child({
      operation: op.name,
      jobId: call.jobId,
      attempt: call.attempt,
      provider: name,
    });
    try {
      const result = await op.definition.run({
        input: call.input,
        jobId: call.jobId,
        attemptId: call.attemptId,
        attempt: call.attempt,
        provider: name,
        downstreamKey: call.idempotencyKey,
        idempotencyKey: call.idempotencyKey,
        signal: controller.signal,
        traceparent: call.traceparent ?? null,
        logger: log,
      });
      const json = result === undefined ? null : result;
      try {
        JSON.stringify(json);
      } catch (error) {
        // The effect may have happened; only the value cannot be stored.
        return { kind: 'unknown', error: { code: 'result_not_json', message: (error as Error).message } };
      }
      return { kind: 'success', result: json };
    } catch (error) {
      if (isDefiniteFailure(error)) {
        // `retryable` is read as a property so a failure thrown by another copy of the package counts too.
        const final = (error as { retryable?: unknown }).retryable === false;
        const { finalBy: _notFromDetails, ...details } = error.details ?? {};
        return {
          kind: 'failure',
          error: {
            ...details,
            code: error.code,
            message: error.message,
            ...(final ? { finalBy: 'retryable_false' as const } : {}),
          },
        };
      }
      const aborted = controller.signal.aborted;
      log.warn({ err: error, aborted }, 'run threw: outcome unknown unless the operation is pure');
      return {
        kind: 'unknown',
        error: {
          code: aborted ? 'aborted' : 'run_threw',
          message: error instanceof Error ? error.message : String(error),
        },
      };
    } finally {
      clearTimeout(timer);
      call.signal.removeEventListener('abort', onOuter);
      unwatch();
    }
  }

  return { name, kind: CODE_PROVIDER_KIND, idempotent, call };
}
