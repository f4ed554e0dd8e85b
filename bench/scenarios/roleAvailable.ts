// The processing scenarios need the background roles; a role the engine does not offer is
// reported as skipped, not guessed.
import { BACKGROUND_ROLES, type BackgroundRole } from '../../src/engine/startRoles.js';

/** Undefined when `serve --role <role>` runs the role; otherwise why the scenario is skipped. */
export async function roleUnavailable(role: BackgroundRole): Promise<string | undefined> {
  return BACKGROUND_ROLES.includes(role)
    ? undefined
    : `skipped: ${role} is not a background role of this version`;
}
