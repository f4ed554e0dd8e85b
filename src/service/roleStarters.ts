import type { Onejob } from '../createOnejob.js';
import { startRelay } from '../outbox/startRelay.js';

export type Role = 'api' | 'worker' | 'relay';
export const ROLES: readonly Role[] = ['api', 'worker', 'relay'];

/** Starts a background role; resolves to its stop function. */
export type RoleStarter = (onejob: Onejob) => Promise<() => Promise<void>>;

/** The background roles a process can run beside (or instead of) the HTTP API. */
export const roleStarters: Record<Exclude<Role, 'api'>, RoleStarter> = {
  worker: async (onejob) => {
    const worker = onejob.attempts.startWorker();
    return () => worker.stop();
  },
  relay: async (onejob) => {
    const relay = await startRelay(onejob);
    return () => relay.stop();
  },
};
