// Where a JSON text stops being JSON, for the `invalid_json` problem. JSON.parse's own
// message names a position for some mistakes and not for others (Node 20: "Unexpected
// token '}', ... is not valid JSON"), so a JSON scanner finds the first error instead.
import { printParseErrorCode, visit } from 'jsonc-parser';
import { OnejobError } from './OnejobError.js';

/** The first place `text` breaks the JSON grammar: 1-based line and column, 0-based byte offset. */
export interface JsonSyntaxPosition {
  line: number;
  column: number;
  offset: number;
  /** What the scanner expected or found there, e.g. "value expected". */
  problem: string;
}

const STRICT = { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false };

export function jsonSyntaxPosition(text: string): JsonSyntaxPosition | undefined {
  let found: JsonSyntaxPosition | undefined;
  visit(
    text,
    {
      onError: (error, offset, _length, line, column) => {
        found ??= {
          line: line + 1,
          column: column + 1,
          offset: Buffer.byteLength(text.slice(0, offset)),
          problem: printParseErrorCode(error)
            .replace(/([a-z])([A-Z])/g, '$1 $2')
            .toLowerCase(),
        };
      },
    },
    STRICT,
  );
  return found;
}

/** The `invalid_json` error for `text`, saying where parsing stopped when the scanner can tell. */
export function invalidJson(text: string, what = 'The request body'): OnejobError {
  const at = jsonSyntaxPosition(text);
  if (!at) return new OnejobError('invalid_json', `${what} is not valid JSON.`);
  return new OnejobError(
    'invalid_json',
    `${what} is not valid JSON: parsing stopped at line ${at.line}, column ${at.column} (byte ${at.offset}): ${at.problem}.`,
    { line: at.line, column: at.column, offset: at.offset },
  );
}
