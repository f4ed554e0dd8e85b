// Fault injection for tests: ONEJOB_FAILPOINTS="name=action[,name=action]" with actions
// `kill` (SIGKILL this process), `error` (throw), `delay:MS`. Unset in production, and
// then every failpoint is a no-op that costs one Map lookup.

export type FailpointAction = { kind: 'kill' } | { kind: 'error' } | { kind: 'delay'; ms: number };

export class FailpointError extends Error {
  constructor(readonly failpoint: string) {
    super(`failpoint ${failpoint} triggered`);
    this.name = 'FailpointError';
  }
}

export function parseFailpoints(spec: string | undefined): Map<string, FailpointAction> {
  const points = new Map<string, FailpointAction>();
  if (!spec) return points;
  for (const part of spec.split(',')) {
    const trimmed = part.trim();
    if (!trimmed) continue;
    const eq = trimmed.indexOf('=');
    if (eq <= 0) throw new Error(`ONEJOB_FAILPOINTS: "${trimmed}" is not name=action`);
    const name = trimmed.slice(0, eq);
    const action = trimmed.slice(eq + 1);
    if (action === 'kill' || action === 'error') points.set(name, { kind: action });
    else if (/^delay:\d+$/.test(action)) points.set(name, { kind: 'delay', ms: Number(action.slice(6)) });
    else throw new Error(`ONEJOB_FAILPOINTS: unknown action "${action}" for ${name} (kill, error, delay:MS)`);
  }
  return points;
}

// A bad spec must not throw while modules load (a stack trace before the CLI can speak):
// `onejob serve` parses it again at start and refuses it with a message naming it.
let active = (() => {
  try {
    return parseFailpoints(process.env.ONEJOB_FAILPOINTS);
  } catch {
    return new Map<string, FailpointAction>();
  }
})();

/** Replaces the active failpoints (tests running in-process). */
export function setFailpoints(spec: string | undefined): void {
  active = parseFailpoints(spec);
}

/** Triggers the failpoint `name` if it is configured. */
export async function failpoint(name: string): Promise<void> {
  if (active.size === 0) return;
  const action = active.get(name);
  if (!action) return;
  if (action.kind === 'kill') {
    process.stderr.write(`onejob: failpoint ${name}: SIGKILL\n`);
    process.kill(process.pid, 'SIGKILL');
    // SIGKILL is not instantaneous; never run past the failpoint.
    await new Promise(() => {});
  }
  if (action.kind === 'error') throw new FailpointError(name);
  if (action.kind === 'delay') await new Promise((r) => setTimeout(r, action.ms));
}
