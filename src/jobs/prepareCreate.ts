import { v7 as uuidv7 } from 'uuid';
import type { CreateJobBody } from '../contract/index.js';
import { OnejobError } from '../errors/OnejobError.js';
import type { OperationRegistry } from '../operations/operationRegistry.js';
import { checkRunAt } from './checkRunAt.js';
import { fingerprint } from './fingerprint.js';

/**
 * A job to create: the body of `POST /v1/jobs` (src/contract) with the owner, the
 * idempotency key of the intent and the trace it belongs to. `runAt` may also be a Date:
 * not started before that instant; a past one runs now. It is part of the request: the
 * same key with another runAt is a 409.
 */
export type CreateJobRequest = Omit<CreateJobBody, 'runAt'> & {
  ownerId: string;
  idempotencyKey: string;
  runAt?: Date | string | null | undefined;
  traceparent?: string | null;
};

/** Throws the problem a request deserves before anything is written. */
export function checkCreateRequest(operations: OperationRegistry, req: CreateJobRequest): void {
  checkRunAt(req.runAt);
  const operation = operations.get(req.operation);
  if (!operation) {
    throw new OnejobError('operation_unknown', `Operation "${req.operation}" is not configured.`, {
      operations: operations.names(),
    });
  }
  const problems = operation.checkInput(req.input);
  if (problems.length > 0) {
    throw new OnejobError('input_invalid', problems.map((p) => `${p.path} ${p.message}`).join('; '), {
      errors: problems,
    });
  }
}

/** A validated request and its fingerprint: all a replay of an existing key needs. */
export interface CheckedCreate {
  req: CreateJobRequest;
  /** `req.runAt` checked, or null. */
  runAt: Date | null;
  print: string;
}

/** A validated request with everything its INSERT needs, computed once, before any batching. */
export interface PreparedCreate extends CheckedCreate {
  id: string;
  eventId: string;
  /** The created event's audit data; its CloudEvent is built from the row (onejob.cloud_event). */
  data: Record<string, unknown>;
}

/** Validates `req` (throwing its 422) and computes its fingerprint, ids and created event. */
export function prepareCreate(operations: OperationRegistry, req: CreateJobRequest): PreparedCreate {
  return withIds(checkCreate(operations, req));
}

/** Validates `req` (throwing its 422) and computes its fingerprint, nothing more. */
export function checkCreate(operations: OperationRegistry, req: CreateJobRequest): CheckedCreate {
  checkCreateRequest(operations, req);
  return checkedFingerprint(req);
}

/** `prepareCreate` for a request `checkCreateRequest` has already passed. */
export function prepareChecked(req: CreateJobRequest): PreparedCreate {
  return withIds(checkedFingerprint(req));
}

function checkedFingerprint(req: CreateJobRequest): CheckedCreate {
  const runAt = checkRunAt(req.runAt);
  const print = fingerprint({ operation: req.operation, input: req.input, runAt: runAt?.toISOString() });
  return { req, runAt, print };
}

/**
 * The new job's id, its created event's data and that event's id: built only for a request
 * that will be inserted, so a replay of an existing key spends nothing on them.
 */
export function withIds(checked: CheckedCreate): PreparedCreate {
  const { req } = checked;
  const id = uuidv7();
  const eventId = uuidv7();
  const data = {
    jobId: id,
    operation: req.operation,
    idempotencyKey: req.idempotencyKey,
    state: 'queued',
    version: 1,
  };
  return { ...checked, id, eventId, data };
}
