// Whether intake should look a batch's keys up before writing (createJobBatcher.ts).
/**
 * The share of replays in recent batches, as a moving average (each batch weighs a
 * quarter). It starts at 1, so a new process looks up first until its batches show there
 * is nothing to find; below a tenth, batches go straight to the intake statement. Measured
 * on HTTP creates of new keys (a16), going straight was 24 % faster (median of three runs);
 * on replays (b) it was 9 to 20 % slower, which is why replays keep the look-up.
 */
export class ReplayShare {
  private share = 1;
  /** Whether the next batch should look its keys up first. */
  get lookUpFirst(): boolean {
    return this.share >= 0.1;
  }
  /** Records a batch: how many of its requests were answered by an existing job. */
  record(replayed: number, requests: number): void {
    if (requests > 0) this.share = 0.75 * this.share + 0.25 * (replayed / requests);
  }
}
