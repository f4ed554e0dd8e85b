import type { Problem } from './problemSchema.js';

/** What an error says (an OnejobError, src/errors/OnejobError.ts). */
interface ProblemSource {
  code: string;
  title: string;
  status: number;
  detail: string;
  extra?: Record<string, unknown> | undefined;
}

export const PROBLEM_TYPE_BASE = 'https://onejob.dev/errors/';

/**
 * The problem document of an error: the contract's `Problem` (problemSchema.ts), whose
 * schema lists every extra field an error may carry (test/contract/wireContract.test.ts
 * checks each error's document against it).
 */
export function problemDocument(error: ProblemSource): Problem {
  return {
    ...error.extra,
    type: PROBLEM_TYPE_BASE + error.code,
    title: error.title,
    status: error.status,
    code: error.code,
    detail: error.detail,
  } as Problem;
}
