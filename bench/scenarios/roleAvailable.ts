// The processing scenarios need roles other parts of onejob provide; while `onejob serve`
// still runs a role as a no-op, the scenario is reported as skipped, not guessed.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ROOT } from '../serverProcess.js';

/** Undefined when `serve --role <role>` runs real code; otherwise why the scenario is skipped. */
export async function roleUnavailable(role: 'worker' | 'relay'): Promise<string | undefined> {
  const starters = await readFile(join(ROOT, 'src', 'service', 'roleStarters.ts'), 'utf8').catch(() => '');
  const noop = new RegExp(`${role}:\\s*async\\s*\\(\\)\\s*=>\\s*async\\s*\\(\\)\\s*=>\\s*\\{\\s*\\}`);
  return starters && !noop.test(starters)
    ? undefined
    : `skipped: ${role} not available (serve --role ${role} is a no-op)`;
}
