import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';

/** One entry of a list the client sees, with the run-time switch dynamic registration flips. */
interface Entry<D, V> {
  readonly definition: D;
  readonly view: V;
  enabled: boolean;
}

/**
 * The run-time state over frozen definitions: which entries are enabled (or removed), and the list
 * payload, rebuilt only when something changes, so a list request does no per-request work.
 */
export class Catalog<D extends { readonly plan: { readonly guarded: boolean } }, V> {
  private readonly entries = new Map<string, Entry<D, V>>();
  private cached: readonly V[] | undefined;
  private cachedDefinitions: readonly D[] | undefined;
  private anyGuarded: boolean | undefined;

  constructor(items: Iterable<readonly [string, D, V]>) {
    for (const [key, definition, view] of items) this.entries.set(key, { definition, view, enabled: true });
  }

  /** The enabled definition under `key`. */
  get(key: string): D | undefined {
    const entry = this.entries.get(key);
    return entry?.enabled ? entry.definition : undefined;
  }

  has(key: string): boolean {
    return this.entries.has(key);
  }

  keys(): string[] {
    return [...this.entries.keys()];
  }

  /** The enabled definitions, in declaration order (built once per change). */
  enabledDefinitions(): readonly D[] {
    this.cachedDefinitions ??= Object.freeze([...this.entries.values()].filter((e) => e.enabled).map((e) => e.definition));
    return this.cachedDefinitions;
  }

  /** Whether any enabled entry has guards or scopes (worked out once per change). */
  guarded(): boolean {
    this.anyGuarded ??= this.enabledDefinitions().some((d) => d.plan.guarded);
    return this.anyGuarded;
  }

  private changed(): void {
    this.cached = undefined;
    this.cachedDefinitions = undefined;
    this.anyGuarded = undefined;
  }

  /** Sets whether `key` is served; returns true when that changed anything. */
  setEnabled(key: string, enabled: boolean): boolean {
    const entry = this.entries.get(key);
    if (!entry) throw new Error(`nothing named "${key}" is registered`);
    if (entry.enabled === enabled) return false;
    entry.enabled = enabled;
    this.changed();
    return true;
  }

  /** Forgets `key` for good; returns true when it was there. */
  remove(key: string): boolean {
    const removed = this.entries.delete(key);
    if (removed) this.changed();
    return removed;
  }

  /** The enabled views, built once per change. */
  list(): readonly V[] {
    this.cached ??= Object.freeze([...this.entries.values()].filter((e) => e.enabled).map((e) => e.view));
    return this.cached;
  }
}

/**
 * One page of a list. Cursors are opaque to clients (spec: pagination); here they carry the offset
 * of the next page. An unreadable cursor is a -32602 error, as the spec asks.
 */
export function paginate<V>(items: readonly V[], cursor: string | undefined, pageSize: number): { items: V[]; nextCursor?: string } {
  let offset = 0;
  if (cursor !== undefined) {
    const decoded = /^o(\d{1,9})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (!decoded)
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Invalid cursor: pass back the nextCursor of a previous page unchanged');
    offset = Number(decoded[1]);
  }
  const page = items.slice(offset, offset + pageSize);
  const next = offset + pageSize;
  return next < items.length ? { items: page, nextCursor: Buffer.from(`o${next}`).toString('base64url') } : { items: page };
}
