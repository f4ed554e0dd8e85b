import type { Server } from 'node:http';

/** Stops an HTTP server now: its kept-alive and in-flight connections are cut, not waited for. */
export function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}
