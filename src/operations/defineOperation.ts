// Operations written in TypeScript. A code operation is an ordinary engine operation
// (limits, input validation, attempts, compare-and-swap completion) whose provider calls
// `run(ctx)` in this process instead of a remote API.
import type { Logger } from 'pino';
import type { Effect } from '../config/types.js';
import type { InferInput, JsonSchema } from './inferInput.js';

/** What `run` receives for one attempt. */
export interface RunContext<I> {
  /** The job's input, validated against `inputSchema` when the job was created. */
  input: I;
  jobId: string;
  attemptId: string;
  /** Attempt number n, 1-based. */
  attempt: number;
  /** The provider name this attempt targets (one of `providers`; the operation's name by default). */
  provider: string;
  /**
   * The key to give downstream APIs that dedupe (for example as Stripe's `Idempotency-Key`),
   * so every attempt of the job is one intent there too. It is the job's id: the same for
   * every attempt, unique per owner and intent, and not the key the job was created with
   * (that one is the caller's, and two owners may use the same one).
   */
  downstreamKey: string;
  /**
   * The same value as `downstreamKey` (the job's id), under a name that read as the key the
   * job was created with.
   * @deprecated Use `downstreamKey`; `idempotencyKey` will be removed in a future major version.
   */
  idempotencyKey: string;
  /**
   * Fires when the attempt times out (`attemptTimeoutMs`), when the job is completed by
   * another attempt, cancelled or the attempt abandoned, and when the worker stops. A `run`
   * that ignores it may still answer; the answer then goes through the same
   * compare-and-swap and is discarded if the attempt can no longer win.
   */
  signal: AbortSignal;
  /** W3C trace context of the job; with traces exported, that of this attempt's provider call span. */
  traceparent: string | null;
  logger: Logger;
}

/**
 * The second argument of `defineOperation`: the input schema, the attempt policy and `run`.
 *
 * @example
 * ```ts
 * const definition: CodeOperationDefinition<{ type: 'object' }, Promise<{ ok: boolean }>> = {
 *   inputSchema: { type: 'object' },
 *   effect: 'pure',
 *   attemptTimeoutMs: 5_000,
 *   maxAttempts: 3,
 *   async run() {
 *     return { ok: true };
 *   },
 * };
 * ```
 */
export interface CodeOperationDefinition<S, R> {
  /** JSON Schema of the input; `jobs.create` refuses input that fails it (`input_invalid`). */
  inputSchema: S;
  /** `exclusive` (default): never two live attempts, a thrown non-definite error is unknown. `pure`: retried freely. */
  effect?: Effect;
  attemptTimeoutMs: number;
  maxAttempts?: number;
  retry?: { baseDelayMs?: number; maxDelayMs?: number };
  /** Only for pure operations with more than one provider. */
  hedgeAfterMs?: number;
  /**
   * Provider names attempts are recorded under, primary first; `ctx.provider` says which one
   * an attempt targets. Default: the operation's name. A non-primary name is only used when
   * the failover gate allows it (see docs/library.md).
   */
  providers?: readonly string[];
  /**
   * Running `run` again with the same `downstreamKey` is safe (the downstream API dedupes
   * on it). Lets the engine resolve an unknown attempt by running it again.
   */
  idempotent?: boolean;
  /**
   * The attempt's candidate result. Return it, throw `DefiniteFailure` when the attempt
   * provably had no effect, or throw anything else when you cannot tell.
   */
  run(ctx: RunContext<InferInput<S>>): R;
}

/** An operation defined in code; pass it to `createOnejob({ operations: [...] })`. */
export interface CodeOperation<N extends string = string, I = unknown, R = unknown> {
  readonly name: N;
  readonly definition: CodeOperationDefinition<JsonSchema, unknown> & {
    run(ctx: RunContext<I>): unknown;
  };
  /** Type-level only: the input and result types, for `jobs.create` / `jobs.get`. */
  readonly types?: { input: I; result: R };
}

/**
 * Any operation `defineOperation` returns, whatever its input and result types: the element type of `createOnejob({ operations })`.
 */
// biome-ignore lint/suspicious/noExplicitAny: the widest code operation, for constraints
export type AnyCodeOperation = CodeOperation<string, any, any>;

export type OperationName<Ops> = Ops extends { readonly name: infer N extends string } ? N : never;
type TypesOf<Ops, O> =
  Extract<Ops, { readonly name: O }> extends { readonly types?: infer T } ? NonNullable<T> : never;
export type OperationInput<Ops, O> = TypesOf<Ops, O> extends { input: infer I } ? I : never;
export type OperationResult<Ops, O> = TypesOf<Ops, O> extends { result: infer R } ? R : never;

const NAME = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,199}$/;

/**
 * Defines an operation as a TypeScript function. The input type comes from `inputSchema`
 * (a JSON Schema literal, a TypeBox schema or `typedSchema<T>(...)`), the result type from
 * what `run` returns.
 *
 * @example
 * ```ts
 * const charge = defineOperation('charge', {
 *   inputSchema: { type: 'object', required: ['amount'], properties: { amount: { type: 'integer' } } },
 *   attemptTimeoutMs: 10_000,
 *   async run(ctx) {
 *     return chargeCard(ctx.input.amount, { idempotencyKey: ctx.downstreamKey, signal: ctx.signal });
 *   },
 * });
 * ```
 */
export function defineOperation<const N extends string, const S extends JsonSchema, R>(
  name: N,
  definition: CodeOperationDefinition<S, R>,
): CodeOperation<N, InferInput<S>, Awaited<R>> {
  if (!NAME.test(name)) throw new TypeError(`defineOperation: "${name}" is not a valid operation name`);
  if (typeof definition.run !== 'function')
    throw new TypeError(`defineOperation ${name}: run must be a function`);
  if (!Number.isInteger(definition.attemptTimeoutMs) || definition.attemptTimeoutMs < 1)
    throw new TypeError(`defineOperation ${name}: attemptTimeoutMs must be a positive integer`);
  if (definition.providers?.length === 0)
    throw new TypeError(`defineOperation ${name}: providers, when given, lists at least one name`);
  return {
    name,
    definition: definition as unknown as CodeOperation<N, InferInput<S>, Awaited<R>>['definition'],
  };
}
