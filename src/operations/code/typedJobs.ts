// The types that carry code operations' input and result types into `onejob.jobs`. For an
// operation name the engine knows only at run time (a config operation, a string from an
// HTTP body) they fall back to the untyped shapes.
import type { CreateJobRequest } from '../../jobs/createJob.js';
import type { JobView } from '../../jobs/jobView.js';
import type { OperationInput, OperationName, OperationResult } from '../defineOperation.js';

/**
 * The `input` type of operation `O`: the type inferred from its `inputSchema` for a code operation, a plain object otherwise.
 */
export type InputFor<Ops, O> =
  O extends OperationName<Ops> ? OperationInput<Ops, O> : Record<string, unknown>;
/**
 * The `result` type of operation `O`: what `run` returns for a code operation, `unknown` otherwise.
 */
export type ResultFor<Ops, O> = O extends OperationName<Ops> ? OperationResult<Ops, O> : unknown;

/** `jobs.create`'s request: for a code operation, `input` has the operation's input type. */
export type JobRequest<Ops, O extends string> = Omit<CreateJobRequest, 'operation' | 'input'> & {
  operation: O;
  input: InputFor<Ops, O>;
};

/**
 * What `onejob.jobs.create` returns: the job, typed by its operation, and whether the key already named it.
 */
export interface TypedCreateJobResult<I, R> {
  job: JobView<I, R>;
  /** True when the key already named a job with the same request: nothing new was written. */
  replayed: boolean;
}

/** Options of `jobs.get` / `jobs.wait`; `operation` types the job and is checked at run time. */
export interface JobReadOptions<O extends string> {
  /** The job must be of this operation, else `job_not_found`. Types `input` and `result`. */
  operation?: O;
}
