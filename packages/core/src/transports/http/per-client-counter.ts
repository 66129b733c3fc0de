/** Counts what each client holds (sessions, streams) against a per-client cap. */
export class PerClientCounter {
  private readonly counts = new Map<string, number>();

  constructor(readonly max: number) {}

  /** Takes one for `client` unless it already holds `max`; a request with no client key is not counted. */
  tryAcquire(client: string | undefined): boolean {
    if (client === undefined) return true;
    const held = this.counts.get(client) ?? 0;
    if (held >= this.max) return false;
    this.counts.set(client, held + 1);
    return true;
  }

  release(client: string | undefined): void {
    if (client === undefined) return;
    const held = (this.counts.get(client) ?? 0) - 1;
    if (held > 0) this.counts.set(client, held);
    else this.counts.delete(client);
  }

  held(client: string | undefined): number {
    return client === undefined ? 0 : (this.counts.get(client) ?? 0);
  }
}
