import type { Onejob } from '../createOnejob.js';
import { startRoles } from '../library/startRoles.js';

export type Role = 'api' | 'worker' | 'relay';
export const ROLES: readonly Role[] = ['api', 'worker', 'relay'];

/** Starts a background role; resolves to its stop function. */
export type RoleStarter = (onejob: Onejob) => Promise<() => Promise<void>>;

/** The background roles a process can run beside (or instead of) the HTTP API. */
export const roleStarters: Record<Exclude<Role, 'api'>, RoleStarter> = {
  worker: async (onejob) => {
    const running = await startRoles(onejob, { roles: ['worker'] });
    return () => running.stop();
  },
  relay: async (onejob) => {
    const running = await startRoles(onejob, { roles: ['relay'] });
    return () => running.stop();
  },
};
