import { createHash } from 'node:crypto';
import { storedToken } from './storedToken.js';

/** Bearer tokens by SHA-256, so a lookup never compares secrets byte by byte. */
export class ApiKeys {
  private readonly owners = new Map<string, string>();

  constructor(pairs: [token: string, ownerId: string][]) {
    for (const [token, owner] of pairs) this.owners.set(hash(token), owner);
  }

  /** The owner a token belongs to, or undefined. */
  ownerOf(token: string): string | undefined {
    return this.owners.get(hash(token));
  }

  get size(): number {
    return this.owners.size;
  }

  /**
   * Parses ONEJOB_API_KEYS: comma-separated `token=ownerId` pairs. Each pair splits at its
   * last `=`, so base64 tokens (which end in `=`) work; owner ids cannot contain `=`.
   * Tokens shorter than MIN_TOKEN_LENGTH are accepted with a warning through `warn`; a
   * token with whitespace, an owner id with a control character and one token given to
   * two owners are refused.
   */
  static parse(spec: string, warn?: (message: string) => void): ApiKeys {
    const pairs: [string, string][] = [];
    for (const [i, part] of spec.split(',').entries()) {
      const item = part.trim();
      if (!item) continue;
      const eq = item.lastIndexOf('=');
      if (eq <= 0 || eq === item.length - 1) {
        throw new Error(
          `ONEJOB_API_KEYS pair ${i + 1} is not token=ownerId (the owner id follows the last "=" and cannot be empty)`,
        );
      }
      const token = item.slice(0, eq);
      const owner = item.slice(eq + 1);
      // Named by position and owner, never by token: these messages are printed.
      if (/\s/.test(token))
        throw new Error(`ONEJOB_API_KEYS pair ${i + 1} (owner ${owner}): the token contains whitespace`);
      if (CONTROL.test(owner))
        throw new Error(`ONEJOB_API_KEYS pair ${i + 1}: the owner id contains a control character`);
      const earlier = pairs.find(([t]) => t === token);
      if (earlier && earlier[1] !== owner)
        throw new Error(
          `ONEJOB_API_KEYS pair ${i + 1}: its token is already the token of owner ${earlier[1]}; a token maps to one owner`,
        );
      if (token.length < MIN_TOKEN_LENGTH) {
        // Named by owner, never by token: the warning is logged.
        warn?.(
          `ONEJOB_API_KEYS: the token of owner ${owner} is ${token.length} characters long; use at least ${MIN_TOKEN_LENGTH} random characters`,
        );
      }
      pairs.push([token, owner]);
    }
    if (pairs.length === 0) throw new Error('ONEJOB_API_KEYS is set but holds no token=ownerId pair');
    return new ApiKeys(pairs);
  }
}

// C0 and C1 control characters: an owner id is logged and printed.
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** Shorter bearer tokens start with a warning: they can be guessed. */
export const MIN_TOKEN_LENGTH = 16;

function hash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** The development token for owner `dev`, created once and kept in `file`. */
export function devToken(file: string): Promise<{ token: string; created: boolean }> {
  return storedToken(file, 'oj_dev_');
}
