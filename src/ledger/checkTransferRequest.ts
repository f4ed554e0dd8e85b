import type { TransferBody } from '../contract/index.js';
import { OnejobError } from '../errors/OnejobError.js';
import { parseInstant } from '../time/parseInstant.js';

// The same rules as the CHECK constraints in migrations/0005_ledger.sql, checked first so a
// caller gets a problem naming the field instead of a constraint name.
export const ACCOUNT_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.:@-]{0,199}$/;
export const TRANSFER_ID_PATTERN = /^[A-Za-z0-9_.:@-]{1,255}$/;
export const CURRENCY_PATTERN = /^[A-Z][A-Z0-9_]{1,15}$/;
export const REFERENCE_MAX = 1000;

/** An instant as the library takes it: an ISO 8601 string with a time zone, a Date, or none. */
export type InstantInput = Date | string | null | undefined;

/**
 * A transfer to record, as `POST /v1/ledger/transfers` is sent it (src/contract) for the
 * owner: `amount` in minor units from `debitAccount` to `creditAccount`, under an `id` the
 * client chose and keeps across its retries. `effectiveAt` (business time) defaults to the
 * time the transfer is recorded.
 */
export type TransferRequest = Omit<TransferBody, 'pending' | 'reference' | 'effectiveAt'> & {
  ownerId: string;
  reference?: string | null | undefined;
  effectiveAt?: InstantInput;
};

const invalid = (detail: string) => new OnejobError('request_invalid', detail);

export function checkTransferId(id: unknown, field = 'id'): string {
  if (typeof id !== 'string' || !TRANSFER_ID_PATTERN.test(id)) {
    throw invalid(`${field} must be 1 to 255 characters of A-Z a-z 0-9 _ . : @ -`);
  }
  return id;
}

export function checkAccount(account: unknown, field = 'account'): string {
  if (typeof account !== 'string' || !ACCOUNT_PATTERN.test(account)) {
    throw invalid(
      `${field} must be 1 to 200 characters of A-Z a-z 0-9 _ . : @ -, starting with a letter or digit`,
    );
  }
  return account;
}

/** A Date PostgreSQL can store: valid, between years 0001 and 9999. */
function storableDate(value: Date): boolean {
  const ms = value.getTime();
  return !Number.isNaN(ms) && parseInstant(value.toISOString()) !== undefined;
}

/** An optional instant (ISO string with a time zone, or Date), or null. */
export function checkInstant(value: InstantInput, field: string): Date | null {
  if (value === undefined || value === null) return null;
  const date =
    value instanceof Date
      ? storableDate(value)
        ? value
        : undefined
      : typeof value === 'string'
        ? parseInstant(value)
        : undefined;
  if (!date) {
    throw invalid(
      `${field} must be a real ISO 8601 date-time with a time zone, between years 0001 and 9999, such as 2025-01-31T14:02:00Z`,
    );
  }
  return date;
}

/**
 * An asOf instant for PostgreSQL, or null for "now". Strings are passed through as text so
 * their microseconds survive (recordedAt values have them); Dates have milliseconds only.
 */
export function checkAsOf(value: InstantInput): string | null {
  if (value === undefined || value === null) return null;
  if (value instanceof Date) {
    if (!storableDate(value)) throw invalid('asOf is not a valid date between years 0001 and 9999');
    return value.toISOString();
  }
  // Checked here, not by PostgreSQL: 2025-02-30 is a 400 naming the parameter, never a 500.
  if (typeof value !== 'string' || parseInstant(value) === undefined) {
    throw invalid(
      'asOf must be a real ISO 8601 instant with a time zone, between years 0001 and 9999, such as 2025-01-31T14:02:00Z',
    );
  }
  return value;
}

/** A transfer request checked and normalised: what the ledger writes. */
export type CheckedTransfer = Omit<TransferRequest, 'reference' | 'effectiveAt'> & {
  reference: string | null;
  effectiveAt: Date | null;
};

/** Throws request_invalid naming the first bad field; returns the request normalised. */
export function checkTransferRequest(req: TransferRequest): CheckedTransfer {
  const id = checkTransferId(req.id);
  const debitAccount = checkAccount(req.debitAccount, 'debitAccount');
  const creditAccount = checkAccount(req.creditAccount, 'creditAccount');
  if (debitAccount === creditAccount) throw invalid('debitAccount and creditAccount must differ');
  // Strict: true or "12" is a client bug to report, never an amount of 1 or 12.
  if (typeof req.amount !== 'number' || !Number.isSafeInteger(req.amount) || req.amount < 1) {
    throw invalid(
      `amount must be a positive integer in minor units (at most 2^53 - 1), got ${typeof req.amount === 'number' ? req.amount : `a ${typeof req.amount}`}`,
    );
  }
  if (typeof req.currency !== 'string' || !CURRENCY_PATTERN.test(req.currency)) {
    throw invalid('currency must be 2 to 16 characters of A-Z 0-9 _ starting with a letter, such as USD');
  }
  const reference = req.reference ?? null;
  if (reference !== null && (typeof reference !== 'string' || reference.length > REFERENCE_MAX)) {
    throw invalid(`reference must be a string of at most ${REFERENCE_MAX} characters`);
  }
  return {
    ownerId: req.ownerId,
    id,
    debitAccount,
    creditAccount,
    amount: req.amount,
    currency: req.currency,
    reference,
    effectiveAt: checkInstant(req.effectiveAt, 'effectiveAt'),
  };
}
