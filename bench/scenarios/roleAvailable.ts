// The processing scenarios need roles other parts of onejob provide; until `onejob serve`
// wires a role to its implementation, the scenario is reported as skipped, not guessed.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ROOT } from '../serverProcess.js';

/** Undefined when `serve --role <role>` runs code from `src/<folder>/`; otherwise why not. */
export async function roleUnavailable(role: 'worker' | 'relay', folder: string): Promise<string | undefined> {
  const starters = await readFile(join(ROOT, 'src', 'service', 'roleStarters.ts'), 'utf8').catch(() => '');
  return starters.includes(`../${folder}/`) ? undefined : `skipped: ${role} not available (serve --role ${role} does not run src/${folder}/ yet)`;
}
