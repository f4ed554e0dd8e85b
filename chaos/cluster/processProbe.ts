// Preloaded into every onejob process of a soak (`node --import tsx --import this-file`):
// a loopback endpoint on CHAOS_PROBE_PORT answering the process's RSS and its event-loop
// delay since the previous read (perf_hooks.monitorEventLoopDelay, the histogram behind
// prom-client's nodejs_eventloop_lag metrics). The worker and relay roles serve no HTTP,
// so the probe is how the soak reads all of them the same way. GET /heapsnapshot writes a
// V8 heap snapshot, for finding what a growing process holds.
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { getHeapSpaceStatistics, writeHeapSnapshot } from 'node:v8';

const port = Number(process.env.CHAOS_PROBE_PORT ?? 0);
if (port > 0) {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const server = createServer((req, res) => {
    // GET /heapsnapshot writes a V8 heap snapshot (the process pauses while it is written)
    // and answers its path: two of them, minutes apart, show what a growing heap holds.
    if (req.url === '/heapsnapshot') {
      const path = writeHeapSnapshot(
        `${process.env.CHAOS_SNAPSHOT_DIR ?? tmpdir()}/onejob-${process.pid}-${Date.now()}.heapsnapshot`,
      );
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ path }));
      return;
    }
    const body = {
      pid: process.pid,
      // Heap and external memory beside RSS: a JavaScript leak raises heapUsed; RSS
      // growing without it is the allocator or V8 reserving, not objects kept alive.
      ...memory(),
      eventLoopDelayMs: {
        p50: delay.percentile(50) / 1e6,
        p99: delay.percentile(99) / 1e6,
        max: delay.max / 1e6,
      },
    };
    delay.reset();
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  server.listen(port, '127.0.0.1');
  function memory() {
    const m = process.memoryUsage();
    return {
      rssBytes: m.rss,
      heapUsedBytes: m.heapUsed,
      heapTotalBytes: m.heapTotal,
      externalBytes: m.external,
      // Per V8 space (new_space, old_space, code_space...): which one a growing heap grows in.
      heapSpaceBytes: Object.fromEntries(getHeapSpaceStatistics().map((x) => [x.space_name, x.space_size])),
    };
  }
  // The probe never keeps a process alive that would otherwise exit.
  server.unref();
}
