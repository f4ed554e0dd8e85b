import type { OnejobError } from '../errors/OnejobError.js';
import type { Problem } from './problemSchema.js';

export const PROBLEM_TYPE_BASE = 'https://onejob.dev/errors/';

/**
 * The problem document of an error: the contract's `Problem` (problemSchema.ts), whose
 * schema lists every extra field an error may carry (test/contract/wireContract.test.ts
 * checks each error's document against it).
 */
export function problemDocument(error: OnejobError): Problem {
  return {
    ...error.extra,
    type: PROBLEM_TYPE_BASE + error.code,
    title: error.title,
    status: error.status,
    code: error.code,
    detail: error.detail,
  } as Problem;
}
