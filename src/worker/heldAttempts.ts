// The attempts a worker holds a lease on, and the provider calls it has open for them:
// the attempt runner and reconciliation add and remove their own, housekeeping renews the
// leases of all of them, and stop() aborts the calls still open after the drain period.

export class HeldAttempts {
  private readonly leases = new Set<string>();
  private readonly calls = new Map<string, AbortController>();

  /** Holds the lease of `attemptId` (renewed by housekeeping until released). */
  hold(attemptId: string): void {
    this.leases.add(attemptId);
  }

  release(attemptId: string): void {
    this.leases.delete(attemptId);
  }

  holds(attemptId: string): boolean {
    return this.leases.has(attemptId);
  }

  /** The attempts whose leases are to be renewed now. */
  ids(): string[] {
    return [...this.leases];
  }

  /** A call open for a held attempt, which stop() aborts once the drain period is over. */
  openCall(attemptId: string, controller: AbortController): void {
    this.calls.set(attemptId, controller);
  }

  closeCall(attemptId: string): void {
    this.calls.delete(attemptId);
  }

  call(attemptId: string): AbortController | undefined {
    return this.calls.get(attemptId);
  }

  abortCalls(reason: Error): void {
    for (const c of this.calls.values()) c.abort(reason);
  }
}
