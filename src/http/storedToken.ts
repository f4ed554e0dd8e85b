// Secrets `onejob serve` makes for itself with the embedded default: generated once, kept
// in a file only the owner can read, and read back on every later start.
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

/** Where in the home folder (`./.onejob`) the tokens live; the CLI reads them from there too. */
export const DEV_TOKEN_FILE = 'api-key';
export const ADMIN_TOKEN_FILE = 'admin-token';

/** File mode of a stored token: read and write for the owner only. */
export const TOKEN_FILE_MODE = 0o600;

/**
 * The token kept in `file`, made with `prefix` and 24 random bytes the first time. Two
 * servers starting at once agree on one token: the file is created exclusively, and the
 * one that loses reads the winner's.
 */
export async function storedToken(
  file: string,
  prefix: string,
): Promise<{ token: string; created: boolean }> {
  const token = `${prefix}${randomBytes(24).toString('base64url')}`;
  await mkdir(dirname(file), { recursive: true });
  try {
    await writeFile(file, `${token}\n`, { mode: TOKEN_FILE_MODE, flag: 'wx' });
    return { token, created: true };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return { token: (await readFile(file, 'utf8')).trim(), created: false };
  }
}
