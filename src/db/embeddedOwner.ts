// Which process answers for the embedded PostgreSQL of a data folder: the one whose PID is
// in `.onejob/owner.json`. It started the server (or adopted one a killed process left
// running) and stops it when it stops. A second `onejob serve` on the same folder is
// refused naming that PID: were it to share the server, the first one out would stop it
// under the other.
import { readFileSync, unlinkSync } from 'node:fs';
import { readFile, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface EmbeddedOwner {
  pid: number;
  /** The command that holds it, e.g. `onejob serve`. */
  command: string;
}

export type Claim = { claimed: true; release(): void } | { claimed: false; owner: EmbeddedOwner };

const OWNER_FILE = 'owner.json';

/** The data folder's server belongs to another running process. */
export class EmbeddedInUseError extends Error {
  override name = 'EmbeddedInUseError';
  constructor(
    readonly owner: EmbeddedOwner,
    home: string,
  ) {
    super(
      `the embedded PostgreSQL in ${home} belongs to ${owner.command} (PID ${owner.pid}), which is still running. ` +
        `Stop it first (kill ${owner.pid}), or run this one in another folder. To run several onejob ` +
        'processes on one database, give each the same DATABASE_URL (docs/operations.md).',
    );
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function readOwner(file: string): Promise<EmbeddedOwner | undefined> {
  try {
    const owner = JSON.parse(await readFile(file, 'utf8')) as EmbeddedOwner;
    return Number.isInteger(owner.pid) ? owner : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Makes this process the owner of `home`'s embedded server, unless a live process already
 * is. The file is created exclusively, so of two processes starting at once one wins; an
 * owner that died without releasing (killed) is replaced.
 */
export async function claimEmbedded(home: string, command: string): Promise<Claim> {
  const file = join(home, OWNER_FILE);
  const mine: EmbeddedOwner = { pid: process.pid, command };
  for (let tries = 0; tries < 3; tries++) {
    try {
      await writeFile(file, `${JSON.stringify(mine)}\n`, { flag: 'wx', mode: 0o600 });
      return { claimed: true, release: releaser(file) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = await readOwner(file);
    if (owner && owner.pid !== process.pid && isAlive(owner.pid)) return { claimed: false, owner };
    // A dead owner's file (or one being written this instant: the next read decides).
    if (owner) await unlink(file).catch(() => undefined);
  }
  const owner = await readOwner(file);
  return owner
    ? { claimed: false, owner }
    : { claimed: false, owner: { pid: 0, command: 'another process' } };
}

/** Removes the owner file if it is still this process's: on stop, and on any exit. */
function releaser(file: string): () => void {
  const release = () => {
    process.off('exit', release);
    try {
      if ((JSON.parse(readFileSync(file, 'utf8')) as EmbeddedOwner).pid === process.pid) unlinkSync(file);
    } catch {
      /* already gone */
    }
  };
  process.on('exit', release);
  return release;
}
