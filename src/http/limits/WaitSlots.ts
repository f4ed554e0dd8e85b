/** Counts the long-polls each owner holds, so one owner cannot hold them without bound. */
export class WaitSlots {
  private readonly held = new Map<string, number>();

  constructor(private readonly max: number) {}

  /** Takes a slot for `owner`; false when the owner already holds `max`. */
  tryTake(owner: string): boolean {
    const n = this.held.get(owner) ?? 0;
    if (n >= this.max) return false;
    this.held.set(owner, n + 1);
    return true;
  }

  release(owner: string): void {
    const n = (this.held.get(owner) ?? 1) - 1;
    if (n <= 0) this.held.delete(owner);
    else this.held.set(owner, n);
  }
}
