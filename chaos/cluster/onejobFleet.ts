// The onejob processes of a run: N per role, each `onejob serve --role <role>` from source
// (node --import tsx src/cli/main.ts), each API process on its own port, and optionally
// library-mode processes (chaos/cluster/libraryProcess.ts) that run code operations. A
// process can be killed, and started again with or without a failpoint for its next life.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { freePort } from '../../test/helpers/ports.js';
import { sleep } from '../../test/helpers/until.js';
import type { Role } from '../faults/buildFaultSchedule.js';
import { ManagedProcess } from './managedProcess.js';

const ROOT = join(import.meta.dirname, '..', '..');
const MAIN = join(ROOT, 'src', 'cli', 'main.ts');
const TSX = import.meta.resolve('tsx');
const LIBRARY = join(import.meta.dirname, 'libraryProcess.ts');
const PROBE = pathToFileURL(join(import.meta.dirname, 'processProbe.ts')).href;

/** The service roles, and `library` for an application embedding onejob. */
export type FleetRole = Role | 'library';

export interface FleetMember {
  name: string;
  role: FleetRole;
  process: ManagedProcess;
  /** Base URL for API and library processes. */
  url?: string;
  /** The process probe's URL (RSS, event-loop delay), when the fleet was started with probes. */
  probeUrl?: string;
}

export interface OnejobFleet {
  members: FleetMember[];
  apis(): FleetMember[];
  libraries(): FleetMember[];
  get(name: string): FleetMember;
  /** Starts `name` and waits until it serves; retries while the database is away. */
  start(name: string, env?: Record<string, string>, timeoutMs?: number): Promise<boolean>;
  /** Starts `name` without waiting for it to serve (it may die at a failpoint before it prints anything). */
  launch(name: string, env?: Record<string, string>): void;
  kill(name: string): Promise<void>;
  /** Starts every member that is not running. */
  reviveAll(timeoutMs?: number): Promise<string[]>;
  stop(): Promise<void>;
}

export async function startOnejobFleet(o: {
  counts: Record<Role, number> & { library?: number };
  env: Record<string, string>;
  configPath: string;
  cwd: string;
  /** Preload chaos/cluster/processProbe.ts into every process (the soak reads it). */
  probes?: boolean;
  /** Node flags before the preloads, e.g. V8 heap sizing. */
  nodeFlags?: string[];
}): Promise<OnejobFleet> {
  const members: FleetMember[] = [];
  for (const role of ['api', 'worker', 'relay', 'library'] as FleetRole[]) {
    for (let i = 1; i <= (o.counts[role] ?? 0); i++) {
      const name = `${role}-${i}`;
      const served = role === 'api' || role === 'library';
      const port = served ? await freePort() : 0;
      const probePort = o.probes ? await freePort() : 0;
      const env: Record<string, string> = {
        ...(o.probes ? { CHAOS_PROBE_PORT: String(probePort) } : {}),
        ...o.env,
        ONEJOB_CONFIG: o.configPath,
        LOG_LEVEL: process.env.CHAOS_LOG_LEVEL ?? 'warn',
        PORT: String(port),
        HOST: '127.0.0.1',
      };
      const preload = [...(o.nodeFlags ?? []), '--import', TSX, ...(o.probes ? ['--import', PROBE] : [])];
      const args = role === 'library' ? [...preload, LIBRARY] : [...preload, MAIN, 'serve', '--role', role];
      members.push({
        name,
        role,
        process: new ManagedProcess(name, process.execPath, args, env, o.cwd),
        ...(served ? { url: `http://127.0.0.1:${port}` } : {}),
        ...(o.probes ? { probeUrl: `http://127.0.0.1:${probePort}` } : {}),
      });
    }
  }
  const get = (name: string) => {
    const m = members.find((x) => x.name === name);
    if (!m) throw new Error(`no process ${name}`);
    return m;
  };

  async function start(name: string, env: Record<string, string> = {}, timeoutMs = 60_000): Promise<boolean> {
    const m = get(name);
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (m.process.running) return true;
      const from = m.process.output().length;
      m.process.start(env);
      try {
        await m.process.waitForOutput(/onejob is running/, Math.max(1_000, deadline - Date.now()), from);
        return true;
      } catch {
        // Exited at start (the database restarting, a port not yet released): try again.
        await m.process.kill('SIGKILL');
        await sleep(500);
      }
    }
    return false;
  }

  const fleet: OnejobFleet = {
    members,
    apis: () => members.filter((m) => m.role === 'api'),
    libraries: () => members.filter((m) => m.role === 'library'),
    get,
    start,
    launch: (name, env = {}) => {
      const m = get(name);
      if (!m.process.running) m.process.start(env);
    },
    kill: (name) => get(name).process.kill('SIGKILL'),
    async reviveAll(timeoutMs = 60_000) {
      const dead = members.filter((m) => !m.process.running).map((m) => m.name);
      await Promise.all(dead.map((n) => start(n, {}, timeoutMs)));
      return dead;
    },
    async stop() {
      await Promise.all(members.map((m) => m.process.kill('SIGTERM', 8_000)));
    },
  };
  try {
    // Two at a time: each start compiles TypeScript and runs migrations.
    for (let i = 0; i < members.length; i += 2) {
      const batch = members.slice(i, i + 2);
      const ok = await Promise.all(batch.map((m) => start(m.name, {}, 90_000)));
      const failed = batch.filter((_, j) => !ok[j]);
      if (failed.length)
        throw new Error(
          `${failed.map((m) => m.name).join(', ')} did not start:\n${failed.map((m) => m.process.output().slice(-2000)).join('\n')}`,
        );
    }
  } catch (error) {
    await fleet.stop();
    throw error;
  }
  return fleet;
}
