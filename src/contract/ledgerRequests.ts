// What the ledger routes are asked (contract section 4, Ledger): transfer bodies, the
// resolutions of a pending transfer, and the instant and paging of account reads. The
// formats of ids, accounts and currencies are checked by the ledger itself
// (src/ledger/checkTransferRequest.ts), so a library call gets the same problems.
import type { FromSchema } from 'json-schema-to-ts';

/** Query types as a caller sends them: a defaulted field may be left out. */
type Sent = { keepDefaultedPropertiesOptional: true };

const minorUnits = { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER } as const;

/** The body of `POST /v1/ledger/transfers`. */
export const createTransferBodySchema = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'debitAccount', 'creditAccount', 'amount', 'currency'],
  properties: {
    id: { type: 'string', description: 'Client-chosen, stable across retries' },
    debitAccount: { type: 'string', description: 'Money leaves this account; created on first use' },
    creditAccount: { type: 'string', description: 'Money enters this account; created on first use' },
    amount: { ...minorUnits, description: 'Minor units' },
    currency: { type: 'string' },
    reference: { type: 'string' },
    effectiveAt: { type: 'string', description: 'Business time (ISO 8601); not with pending' },
    pending: {
      type: 'boolean',
      description:
        'Hold the amount without moving it (a PendingTransfer); post or void it later. Default false',
    },
  },
} as const;

/** The body of `POST /v1/ledger/transfers/{id}/reverse`. */
export const reverseTransferBodySchema = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'reason'],
  properties: {
    id: { type: 'string', description: 'Id of the compensating transfer' },
    reason: { type: 'string', description: 'What changed' },
    effectiveAt: { type: 'string' },
  },
} as const;

/** The body of `POST /v1/ledger/transfers/{id}/post` (none posts the whole hold). */
export const postPendingTransferBodySchema = {
  type: ['object', 'null'],
  additionalProperties: false,
  properties: {
    amount: { ...minorUnits, description: 'Minor units, at most the amount held; default the whole hold' },
    reason: { type: 'string' },
  },
} as const;

/** The body of `POST /v1/ledger/transfers/{id}/void`. */
export const voidPendingTransferBodySchema = {
  type: ['object', 'null'],
  additionalProperties: false,
  properties: { reason: { type: 'string', description: 'Why it was released' } },
} as const;

/** `{account}` in a route's path. */
export const accountParamsSchema = {
  type: 'object',
  required: ['account'],
  properties: { account: { type: 'string' } },
  additionalProperties: false,
} as const;

const asOf = {
  type: 'string',
  description: 'ISO 8601 instant; only transfers recorded at or before it count',
} as const;

/** The query of `GET /v1/ledger/accounts/{account}`. */
export const balanceQuerySchema = {
  type: 'object',
  additionalProperties: false,
  properties: { asOf },
} as const;

/** The query of `GET /v1/ledger/accounts/{account}/entries`. */
export const entriesQuerySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    asOf,
    limit: { type: 'integer', minimum: 1, maximum: 1000, default: 100 },
    cursor: { type: 'string', maxLength: 200 },
  },
} as const;

/** The query of `GET /v1/ledger/accounts`. */
export const accountsQuerySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    asOf,
    after: { type: 'string', maxLength: 200, description: "The previous page's nextAfter" },
    limit: { type: 'integer', minimum: 1, maximum: 500, default: 100 },
  },
} as const;

/** The account a route reads. */
export type AccountParams = FromSchema<typeof accountParamsSchema>;
/** What `POST /v1/ledger/transfers` is sent: a transfer, or a pending one. */
export type TransferBody = FromSchema<typeof createTransferBodySchema>;
/** What `POST /v1/ledger/transfers/{id}/reverse` is sent. */
export type ReverseTransferBody = FromSchema<typeof reverseTransferBodySchema>;
/** What `POST /v1/ledger/transfers/{id}/post` is sent. */
export type PostPendingTransferBody = FromSchema<typeof postPendingTransferBodySchema>;
/** What `POST /v1/ledger/transfers/{id}/void` is sent. */
export type VoidPendingTransferBody = FromSchema<typeof voidPendingTransferBodySchema>;
/** The instant and paging of an account's entries. */
export type EntriesQuery = FromSchema<typeof entriesQuerySchema, Sent>;
/** The instant and paging of the owner's accounts. */
export type AccountsQuery = FromSchema<typeof accountsQuerySchema, Sent>;
