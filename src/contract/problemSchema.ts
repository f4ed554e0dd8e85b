// The problem document every error answers with (RFC 9457), and the extension fields some
// codes add (docs/errors.md). Closed: a new extension field is named here first.
import type { FromSchema } from 'json-schema-to-ts';

export const problemSchema = {
  $id: 'Problem',
  type: 'object',
  description: 'RFC 9457 problem details with a stable `code`.',
  required: ['type', 'title', 'status', 'code', 'detail'],
  properties: {
    type: { type: 'string' },
    title: { type: 'string' },
    status: { type: 'integer' },
    code: { type: 'string' },
    detail: { type: 'string' },
    // Extension fields, each added by the codes that need it (docs/errors.md).
    jobId: { type: 'string', description: 'The job the problem is about' },
    jobState: { type: 'string' },
    n: { type: 'integer', description: 'The attempt the problem is about' },
    attemptState: { type: 'string' },
    liveAttempts: {
      type: 'array',
      description: 'The attempts that stand in the way of a new one',
      items: {
        type: 'object',
        required: ['n', 'state'],
        properties: { n: { type: 'integer' }, state: { type: 'string' } },
        additionalProperties: false,
      },
    },
    retryAfterSeconds: { type: 'number', description: 'Also sent as Retry-After' },
    errors: {
      type: 'array',
      description: 'input_invalid: each way the input fails its schema',
      items: { type: 'object', additionalProperties: true },
    },
    operations: { type: 'array', items: { type: 'string' }, description: 'The configured operations' },
    providers: { type: 'array', items: { type: 'string' }, description: "The operation's providers" },
    provider: { type: 'string' },
    operation: { type: 'string' },
    transfer: {
      type: 'object',
      additionalProperties: true,
      description: 'The transfer the id already names',
    },
    accounts: { type: 'array', description: 'The accounts and the currencies they hold' },
    reversedBy: { type: 'string', description: 'The reversal already recorded' },
    pendingTransfer: {
      type: 'object',
      additionalProperties: true,
      description: 'The pending transfer the id already names, as resolved',
    },
    heldAmount: {
      type: 'integer',
      description: 'pending_amount_exceeds_hold: what the pending transfer holds',
    },
    requestedAmount: { type: 'integer', description: 'pending_amount_exceeds_hold: what the post asked for' },
    param: { type: 'string', description: 'The request parameter at fault' },
    line: { type: 'integer', description: 'invalid_json: where parsing stopped' },
    column: { type: 'integer' },
    offset: { type: 'integer' },
  },
  additionalProperties: false,
} as const;

/** RFC 9457 problem document with onejob's stable `code`. */
export type Problem = FromSchema<typeof problemSchema>;
