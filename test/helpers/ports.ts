// Loopback ports for tests, chaos and bench: the one place they are picked.
import { createServer } from 'node:net';

/** A loopback port that was free a moment ago (the OS picks it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

/** A loopback port nothing listens on: a connection to it is refused. */
export const closedPort = freePort;
