import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

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

  /** Parses ONEJOB_API_KEYS: comma-separated `token=ownerId` pairs. */
  static parse(spec: string): ApiKeys {
    const pairs: [string, string][] = [];
    for (const part of spec.split(',')) {
      const item = part.trim();
      if (!item) continue;
      const eq = item.indexOf('=');
      if (eq <= 0 || eq === item.length - 1) {
        throw new Error('ONEJOB_API_KEYS must be comma-separated token=ownerId pairs');
      }
      pairs.push([item.slice(0, eq), item.slice(eq + 1)]);
    }
    if (pairs.length === 0) throw new Error('ONEJOB_API_KEYS is set but holds no token=ownerId pair');
    return new ApiKeys(pairs);
  }
}

function hash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** The development token for owner `dev`, created once and kept in `file`. */
export async function devToken(file: string): Promise<{ token: string; created: boolean }> {
  if (existsSync(file)) return { token: (await readFile(file, 'utf8')).trim(), created: false };
  const token = `oj_dev_${randomBytes(24).toString('base64url')}`;
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, token + '\n', { mode: 0o600 });
  return { token, created: true };
}
