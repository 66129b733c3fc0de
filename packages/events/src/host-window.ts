/**
 * At most `limit` uses per host in each `windowMs` (fixed windows, this instance): the draft's
 * per-destination rate limit on verification POSTs, so callers cannot turn challenges into a flood
 * of one host by varying the path.
 */
export class HostWindow {
  private readonly counts = new Map<string, number>();
  private windowStart = 0;

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
  ) {}

  /** Counts one use of `host`; false when the host had its `limit` in this window. */
  take(host: string, now: number): boolean {
    if (now - this.windowStart >= this.windowMs) {
      this.counts.clear();
      this.windowStart = now;
    }
    const used = this.counts.get(host) ?? 0;
    if (used >= this.limit) return false;
    this.counts.set(host, used + 1);
    return true;
  }
}
