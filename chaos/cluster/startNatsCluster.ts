// A three-node NATS JetStream cluster on loopback: each node with its own client and
// cluster ports and its own store directory, routes to the others, and one stream of three
// replicas that the relay publishes into. A node can be stopped and started again with
// its data.
import { writeFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { freePort } from '../../test/helpers/ports.js';
import { until } from '../../test/helpers/until.js';
import { ManagedProcess } from './managedProcess.js';

export const NATS_SERVER = process.env.NATS_SERVER_BIN ?? '/usr/sbin/nats-server';

export interface NatsCluster {
  urls: string[];
  stream: string;
  nodes: ManagedProcess[];
  /** Stops node i (0-based) with SIGKILL, keeping its store. */
  stopNode(i: number): Promise<void>;
  startNode(i: number): Promise<void>;
  /** SIGSTOP node i for `ms`, then SIGCONT: alive to the kernel, silent to its peers and clients. */
  stallNode(i: number, ms: number): Promise<void>;
  stop(): Promise<void>;
}

export async function startNatsCluster(dir: string, stream = 'ONEJOB', size = 3): Promise<NatsCluster> {
  const client = await Promise.all(Array.from({ length: size }, freePort));
  const route = await Promise.all(Array.from({ length: size }, freePort));
  const nodes: ManagedProcess[] = [];
  for (let i = 0; i < size; i++) {
    const store = join(dir, `nats-${i + 1}`);
    await mkdir(store, { recursive: true });
    const routes = route.map((p, j) => (j === i ? null : `nats-route://127.0.0.1:${p}`)).filter(Boolean);
    const conf = join(dir, `nats-${i + 1}.conf`);
    writeFileSync(
      conf,
      [
        `server_name: chaos-n${i + 1}`,
        `listen: 127.0.0.1:${client[i]}`,
        `jetstream { store_dir: "${store}" }`,
        `cluster { name: onejob-chaos, listen: 127.0.0.1:${route[i]}, routes: [${routes.join(', ')}] }`,
      ].join('\n') + '\n',
    );
    const node = new ManagedProcess(
      `nats-${i + 1}`,
      NATS_SERVER,
      ['-c', conf],
      { PATH: process.env.PATH ?? '' },
      dir,
    );
    node.start();
    nodes.push(node);
  }
  const urls = client.map((p) => `nats://127.0.0.1:${p}`);
  const cluster: NatsCluster = {
    urls,
    stream,
    nodes,
    async stopNode(i) {
      await nodes[i]!.kill('SIGKILL');
    },
    async startNode(i) {
      const from = nodes[i]!.output().length;
      nodes[i]!.start();
      await nodes[i]!.waitForOutput(/Server is ready/, 20_000, from);
    },
    async stallNode(i, ms) {
      const pid = nodes[i]!.child?.pid;
      if (!pid || !nodes[i]!.running) return;
      process.kill(pid, 'SIGSTOP');
      try {
        await new Promise((r) => setTimeout(r, ms));
      } finally {
        process.kill(pid, 'SIGCONT');
      }
    },
    async stop() {
      await Promise.all(nodes.map((n) => n.kill('SIGTERM', 5_000)));
    },
  };
  try {
    await Promise.all(nodes.map((n) => n.waitForOutput(/Server is ready/, 20_000)));
    // The stream of three replicas needs a JetStream meta leader; retry until one is elected.
    await until(
      'a JetStream stream with three replicas',
      async () => {
        const nc = await connect({ servers: urls, timeout: 2_000 });
        try {
          const jsm = await jetstreamManager(nc, { timeout: 5_000 });
          await jsm.streams
            .add({ name: stream, subjects: ['onejob.>'], num_replicas: size })
            .catch(async (error: unknown) => {
              const info = await jsm.streams.info(stream).catch(() => {
                throw error;
              });
              if (info.config.num_replicas !== size) throw error;
            });
          return true;
        } finally {
          await nc.close();
        }
      },
      30_000,
      { everyMs: 500, retryErrors: true },
    );
  } catch (error) {
    await cluster.stop();
    throw error;
  }
  return cluster;
}
