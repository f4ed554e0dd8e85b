// The ledger on the wire (contract section 4, Ledger): transfers, balances, entries.
import type { FromSchema } from 'json-schema-to-ts';
import { timestamp } from './wireParts.js';

// What a transfer and each of its entries both say of it: its amount, and the fields it
// was recorded with.
const recorded = {
  amount: { type: 'integer', description: 'Integer minor units of currency' },
  currency: { type: 'string' },
  reference: { type: ['string', 'null'] },
  effectiveAt: {
    ...timestamp,
    description: 'Business time: as the client stated it, else the time it was recorded',
  },
  recordedAt: {
    ...timestamp,
    description: 'When the ledger recorded it (microseconds); asOf filters on this',
  },
  reverses: { type: ['string', 'null'], description: 'On a reversal, the transfer it compensates' },
  reason: { type: ['string', 'null'] },
} as const;
const recordedNames = [
  'amount',
  'currency',
  'reference',
  'effectiveAt',
  'recordedAt',
  'reverses',
  'reason',
] as const;

export const transferSchema = {
  type: 'object',
  description: 'A recorded transfer.',
  required: ['id', 'debitAccount', 'creditAccount', ...recordedNames],
  properties: {
    id: { type: 'string' },
    debitAccount: { type: 'string' },
    creditAccount: { type: 'string' },
    ...recorded,
  },
  additionalProperties: false,
} as const;

export const pendingTransferSchema = {
  type: 'object',
  description:
    'A pending transfer: an amount held against two accounts without moving it, until it is posted (moved, at most the amount held) or voided (released).',
  required: [
    'id',
    'debitAccount',
    'creditAccount',
    'amount',
    'currency',
    'reference',
    'recordedAt',
    'status',
    'postedAmount',
    'resolvedAt',
    'reason',
  ],
  properties: {
    id: { type: 'string', description: 'Also the id of the transfer its post records' },
    debitAccount: { type: 'string' },
    creditAccount: { type: 'string' },
    amount: { type: 'integer', description: 'Held, in integer minor units of currency' },
    currency: { type: 'string' },
    reference: { type: ['string', 'null'] },
    recordedAt: { ...timestamp, description: 'When the hold was recorded (microseconds)' },
    status: { enum: ['pending', 'posted', 'voided'] },
    postedAmount: {
      type: ['integer', 'null'],
      description: 'What its post moved (the rest was released); null unless posted',
    },
    resolvedAt: {
      type: ['string', 'null'],
      format: 'date-time',
      description: 'When it was posted or voided',
    },
    reason: { type: ['string', 'null'], description: 'Given with the void (or post)' },
  },
  additionalProperties: false,
} as const;

const sums = {
  account: { type: 'string' },
  currency: { type: 'string' },
  balance: {
    type: 'integer',
    description: 'Posted credits - posted debits, in minor units: money in is positive',
  },
  debits: { type: 'integer', description: 'Posted debits' },
  credits: { type: 'integer', description: 'Posted credits' },
  heldDebits: { type: 'integer', description: 'Debits of pending transfers not yet posted or voided' },
  heldCredits: { type: 'integer', description: 'Credits of pending transfers not yet posted or voided' },
  available: {
    type: 'integer',
    description:
      'balance - heldDebits: what is left once every hold against the account is posted in full; held credits are not counted until posted',
  },
} as const;
const sumNames = [
  'account',
  'currency',
  'balance',
  'debits',
  'credits',
  'heldDebits',
  'heldCredits',
  'available',
] as const;

export const balanceSchema = {
  type: 'object',
  description: "An account's balance at an instant: the sum of its entries.",
  required: [...sumNames, 'asOf'],
  properties: {
    ...sums,
    asOf: { ...timestamp, description: 'Transfers recorded at or before this instant count' },
  },
  additionalProperties: false,
} as const;

export const accountBalanceSchema = {
  type: 'object',
  required: sumNames,
  properties: sums,
  additionalProperties: false,
} as const;

export const accountPageSchema = {
  type: 'object',
  description: "One page of the owner's accounts, by name, with their balances as of one instant.",
  required: ['asOf', 'items', 'nextAfter'],
  properties: {
    asOf: timestamp,
    items: { type: 'array', items: accountBalanceSchema },
    nextAfter: { type: ['string', 'null'], description: 'Pass it as `after` for the next page' },
  },
  additionalProperties: false,
} as const;

export const entrySchema = {
  type: 'object',
  description: 'One ledger entry: one side of a transfer, on one account.',
  required: ['transferId', 'account', 'counterparty', 'side', ...recordedNames, 'reversedBy'],
  properties: {
    transferId: { type: 'string' },
    account: { type: 'string' },
    counterparty: { type: 'string' },
    side: { enum: ['debit', 'credit'] },
    ...recorded,
    reversedBy: {
      type: ['string', 'null'],
      description: 'The transfer that reversed this one, if recorded by asOf',
    },
  },
  additionalProperties: false,
} as const;

export const entryPageSchema = {
  type: 'object',
  description: "A page of an account's entries as of an instant; pass `nextCursor` back as `cursor`.",
  required: ['account', 'currency', 'asOf', 'items', 'nextCursor'],
  properties: {
    account: { type: 'string' },
    currency: { type: 'string' },
    asOf: timestamp,
    items: { type: 'array', items: entrySchema },
    nextCursor: { type: ['string', 'null'] },
  },
  additionalProperties: false,
} as const;

/** A recorded transfer. */
export type Transfer = FromSchema<typeof transferSchema>;
/** A pending transfer and how it was resolved. */
export type PendingTransfer = FromSchema<typeof pendingTransferSchema>;
/** An account's balance at an instant. */
export type Balance = FromSchema<typeof balanceSchema>;
/** One account of a page of accounts, with its balance as of the page's `asOf`. */
export type AccountBalance = FromSchema<typeof accountBalanceSchema>;
/** One page of the owner's accounts, by name, with their balances as of `asOf`; pass `nextAfter` as `after` for the next. */
export type AccountPage = FromSchema<typeof accountPageSchema>;
/** One ledger entry: one side of a transfer, on one account. */
export type Entry = FromSchema<typeof entrySchema>;
/** A page of an account's entries as of an instant; pass `nextCursor` back as `cursor`. */
export type EntryPage = FromSchema<typeof entryPageSchema>;
