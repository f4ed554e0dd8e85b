import { OnejobError } from '../errors/OnejobError.js';

// The same rules as the CHECK constraints in migrations/0005_ledger.sql, checked first so a
// caller gets a problem naming the field instead of a constraint name.
export const ACCOUNT_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.:@-]{0,199}$/;
export const TRANSFER_ID_PATTERN = /^[A-Za-z0-9_.:@-]{1,255}$/;
export const CURRENCY_PATTERN = /^[A-Z][A-Z0-9_]{1,15}$/;
export const REFERENCE_MAX = 1000;

/** A transfer to record: `amount` in minor units from `debitAccount` to `creditAccount`. */
export interface TransferRequest {
  ownerId: string;
  /** Chosen by the client and stable across its retries: the transfer's idempotency key. */
  id: string;
  debitAccount: string;
  creditAccount: string;
  /** A positive integer in minor units of `currency`. */
  amount: number;
  currency: string;
  reference?: string | null | undefined;
  /** Business time; defaults to the time the transfer is recorded. */
  effectiveAt?: Date | string | null | undefined;
}

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

/** An optional instant (ISO string or Date), or null. */
export function checkInstant(value: Date | string | null | undefined, field: string): Date | null {
  if (value === undefined || value === null) return null;
  const date = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(date.getTime()) || (typeof value === 'string' && !/^\d{4}-\d{2}-\d{2}T/.test(value))) {
    throw invalid(`${field} must be an ISO 8601 date-time such as 2025-01-31T14:02:00Z`);
  }
  return date;
}

// An instant with an explicit offset: without one PostgreSQL would read it in the session time zone.
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}(:?\d{2})?)$/i;

/**
 * An asOf instant for PostgreSQL, or null for "now". Strings are passed through as text so
 * their microseconds survive (recordedAt values have them); Dates have milliseconds only.
 */
export function checkAsOf(value: Date | string | null | undefined): string | null {
  if (value === undefined || value === null) return null;
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw invalid('asOf is not a valid date');
    return value.toISOString();
  }
  if (typeof value !== 'string' || !ISO_INSTANT.test(value) || Number.isNaN(Date.parse(value))) {
    throw invalid('asOf must be an ISO 8601 instant with a time zone, such as 2025-01-31T14:02:00Z');
  }
  return value;
}

export interface CheckedTransfer {
  ownerId: string;
  id: string;
  debitAccount: string;
  creditAccount: string;
  amount: number;
  currency: string;
  reference: string | null;
  effectiveAt: Date | null;
}

/** Throws request_invalid naming the first bad field; returns the request normalised. */
export function checkTransferRequest(req: TransferRequest): CheckedTransfer {
  const id = checkTransferId(req.id);
  const debitAccount = checkAccount(req.debitAccount, 'debitAccount');
  const creditAccount = checkAccount(req.creditAccount, 'creditAccount');
  if (debitAccount === creditAccount) throw invalid('debitAccount and creditAccount must differ');
  if (!Number.isSafeInteger(req.amount) || req.amount < 1) {
    throw invalid('amount must be a positive integer in minor units (at most 2^53 - 1)');
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
