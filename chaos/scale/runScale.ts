// Scale-out on one machine: the same backlog of jobs run by 1, 2 and 4 worker processes,
// reporting jobs completed per second. No faults; the fake provider answers in 20-40 ms.
export async function runScale(_o: { seed: number; resultsDir: string; database: 'system' | 'embedded'; jobs: number }) {
  throw new Error('not yet');
}
