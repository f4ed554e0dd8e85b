// onejob.start() and onejob.stop(): the background roles of this process, at most one
// set running at a time.
import { type RolesDeps, type RunningRoles, type StartOptions, startRoles } from '../startRoles.js';

export interface RolesHandle {
  /** Starts the background roles in this process: the worker and the outbox relay (default both). */
  start(options?: StartOptions): Promise<RunningRoles>;
  /** Stops the roles start() started; the pool stays open (close() ends everything). */
  stop(): Promise<void>;
}

/** The roles' dependencies, and the env the relay reads publisher secrets from. */
export type RolesHandleDeps = RolesDeps & { readonly env?: NodeJS.ProcessEnv | undefined };

export function createRolesHandle(deps: RolesHandleDeps): RolesHandle {
  let roles: RunningRoles | undefined;
  return {
    async start(o) {
      if (roles) throw new Error('onejob.start(): the roles already run; stop() them first');
      // The relay reads publisher secrets from the same env as the providers.
      roles = await startRoles(deps, { ...o, relay: { env: deps.env, ...o?.relay } });
      return roles;
    },
    async stop() {
      const running = roles;
      roles = undefined;
      await running?.stop();
    },
  };
}
