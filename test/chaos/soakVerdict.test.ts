import { describe, expect, it } from 'vitest';
import { drawSoakChart } from '../../chaos/soak/drawSoakChart.js';
import { judgeSoak } from '../../chaos/soak/judgeSoak.js';
import type { SoakSample } from '../../chaos/soak/sampleCluster.js';

const MIN = 60_000;

/** Ten minutes of samples, one a minute, with per-minute RSS of the worker given by `rss`. */
function samples(
  rss: (minute: number) => number,
  backlog: (minute: number) => number = () => 3,
): SoakSample[] {
  return Array.from({ length: 11 }, (_, m) => ({
    atMs: m * MIN,
    processes: {
      'api-1': { rssMb: 150, loopP99Ms: 20, loopMaxMs: 40 },
      'worker-1': { rssMb: rss(m), loopP99Ms: 25, loopMaxMs: 60 },
    },
    dbConnections: 30,
    outboxBacklog: backlog(m),
    unknownJobs: 0,
    openJobs: 4,
  }));
}

describe('soak verdict', () => {
  it('passes flat memory and a bounded backlog, judging growth from minute 5 only', () => {
    // Warm-up growth before minute 5 does not count.
    const v = judgeSoak(
      samples((m) => (m < 5 ? 100 + m * 20 : 200 + m)),
      20,
    );
    expect(v.reasons).toEqual([]);
    expect(v.passed).toBe(true);
    expect(v.baselineAtMs).toBe(5 * MIN);
    expect(v.rssGrowth['worker-1']).toBe(2.4);
  });

  it('fails RSS growth of 10 % or more from minute 5 to the end', () => {
    const v = judgeSoak(
      samples((m) => (m < 5 ? 200 : 200 + (m - 5) * 5)),
      20,
    );
    expect(v.passed).toBe(false);
    expect(v.reasons).toEqual(['worker-1 RSS grew 12.5 % (200 MB to 225 MB)']);
  });

  it('fails a backlog above ten seconds of intake after the first minute, and a process that stops answering', () => {
    const grown = judgeSoak(
      samples(
        () => 200,
        (m) => m * 40,
      ),
      20,
    );
    expect(grown.reasons).toEqual(['outbox backlog reached 400 (limit 200)']);
    const silent = samples(() => 200);
    silent[7]!.processes['api-1'] = null;
    expect(judgeSoak(silent, 20).reasons).toEqual(['api-1 did not answer its probe at 420 s']);
  });

  it('draws one line per process and per database series, and prints the verdict', () => {
    const s = samples(() => 200);
    const svg = drawSoakChart(s, {
      title: 'soak',
      command: 'npm run chaos -- --soak 10m',
      verdict: judgeSoak(s, 20),
    });
    expect(svg.startsWith('<svg')).toBe(true);
    // RSS and event-loop delay for two processes, connections, and three backlog series.
    expect(svg.match(/<polyline/g)).toHaveLength(2 + 2 + 1 + 3);
    expect(svg).toContain('PASS');
  });
});
