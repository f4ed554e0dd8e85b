import type { OnejobError } from './OnejobError.js';

/** RFC 9457 problem details, with onejob's stable `code`. */
export interface ProblemDocument {
  type: string;
  title: string;
  status: number;
  code: string;
  detail: string;
  [extra: string]: unknown;
}

export const PROBLEM_TYPE_BASE = 'https://onejob.dev/errors/';

export function problemDocument(error: OnejobError): ProblemDocument {
  return {
    ...error.extra,
    type: PROBLEM_TYPE_BASE + error.code,
    title: error.title,
    status: error.status,
    code: error.code,
    detail: error.detail,
  };
}
