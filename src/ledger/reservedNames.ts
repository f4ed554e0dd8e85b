import { OnejobError } from '../errors/OnejobError.js';

// Names onejob writes itself. Attempt costs move money from `usage:*` to `provider:*`
// accounts under transfer ids `attempt-cost:<attempt>`; the cost poster relies on those
// accounts holding only its own transfers (a tenant's transfer in another currency there
// would refuse every later cost) and on nobody else reversing or forging them.
export const RESERVED_ACCOUNT_PREFIXES = ['usage:', 'provider:'] as const;
export const RESERVED_TRANSFER_ID_PREFIXES = ['attempt-cost:'] as const;

function reserved(value: string, prefixes: readonly string[]): string | undefined {
  return prefixes.find((p) => value.startsWith(p));
}

/** Throws reserved_namespace when a tenant names one of onejob's own accounts. */
export function refuseReservedAccount(account: string, field: string): void {
  const prefix = reserved(account, RESERVED_ACCOUNT_PREFIXES);
  if (prefix) {
    throw new OnejobError(
      'reserved_namespace',
      `${field} ${account} starts with ${prefix}; accounts ${RESERVED_ACCOUNT_PREFIXES.map((p) => `${p}*`).join(' and ')} are written by onejob only (attempt costs).`,
    );
  }
}

/** Throws reserved_namespace when a tenant names (or reverses) one of onejob's own transfers. */
export function refuseReservedTransferId(id: string, field: string): void {
  const prefix = reserved(id, RESERVED_TRANSFER_ID_PREFIXES);
  if (prefix) {
    throw new OnejobError(
      'reserved_namespace',
      `${field} ${id} starts with ${prefix}; such transfers are written by onejob only (attempt costs) and cannot be created or reversed through this call.`,
    );
  }
}
