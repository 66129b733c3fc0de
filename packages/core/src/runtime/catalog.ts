import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';

/** One entry of a list the client sees, with the run-time switch dynamic registration flips. */
interface Entry<D, V> {
  readonly definition: D;
  readonly view: V;
  enabled: boolean;
}

/** The list pages catalogs keep: the same object, unchanged, until their catalog changes. */
const keptPages = new WeakSet<object>();

/** True for a list page a catalog keeps (whatever is made of it may be kept as long). */
export function isKeptPage(value: unknown): boolean {
  return typeof value === 'object' && value !== null && keptPages.has(value);
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
  /** List results by cursor, for the cursors the pages hand out: at most one per page. */
  private readonly pages = new Map<string | undefined, Readonly<Record<string, unknown>>>();

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
    this.pages.clear();
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

  /**
   * Serves `definition` under `key` from now on: added enabled, or in place of what was there
   * (enabled or not, as it was). For entries only known at run time (a remote server's).
   */
  put(key: string, definition: D, view: V): void {
    const entry = this.entries.get(key);
    this.entries.set(key, { definition, view, enabled: entry?.enabled ?? true });
    this.changed();
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

  /**
   * One page of the enabled views as a list result (`{ [key]: views, nextCursor? }`), for callers
   * who see every entry: the same frozen object until something changes, so what is made of it
   * (its encoded text) can be kept as long. An unreadable cursor throws as `paginate` does.
   */
  page(key: string, cursor: string | undefined, pageSize: number): Readonly<Record<string, unknown>> {
    const kept = this.pages.get(cursor);
    if (kept) return kept;
    const views = this.list();
    const { items, nextCursor, offset } = paginate(views, cursor, pageSize);
    const result = Object.freeze({ [key]: Object.freeze(items), ...(nextCursor ? { nextCursor } : {}) });
    // Only the cursors pages hand out are kept: any other a client makes up is served, not stored.
    if (cursor === undefined || (offset % pageSize === 0 && offset < views.length && cursor === cursorOf(offset))) {
      this.pages.set(cursor, result);
      keptPages.add(result);
    }
    return result;
  }
}

/** The cursor of the page starting at `offset`. */
function cursorOf(offset: number): string {
  return Buffer.from(`o${offset}`).toString('base64url');
}

/**
 * One page of a list. Cursors are opaque to clients (spec: pagination); here they carry the offset
 * of the next page. An unreadable cursor is a -32602 error, as the spec asks.
 */
export function paginate<V>(
  items: readonly V[],
  cursor: string | undefined,
  pageSize: number,
): { items: V[]; nextCursor?: string; offset: number } {
  let offset = 0;
  if (cursor !== undefined) {
    const decoded = /^o(\d{1,9})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (!decoded)
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Invalid cursor: pass back the nextCursor of a previous page unchanged');
    offset = Number(decoded[1]);
  }
  const page = items.slice(offset, offset + pageSize);
  const next = offset + pageSize;
  return next < items.length ? { items: page, nextCursor: cursorOf(next), offset } : { items: page, offset };
}
