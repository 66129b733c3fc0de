/**
 * What a connection has in flight, by a key that comes and goes with every call: a JSON-RPC id
 * (the string "1" apart from the number 1) or a key made from one.
 *
 * Not a `Map` or a `Set`. V8 rebuilds their hash table as they grow and shrink, and the table it
 * leaves behind keeps a pointer to its successor (for iterators still walking it). Once one such
 * table is in the old generation (a mark-compact that lands while calls are in flight moves it
 * there), the scavenges keep every later table alive through that chain, and every entry each
 * held, and promote them all: garbage that only the next mark-compact frees. Over stdio that was
 * about 300 bytes of every call, and the process's RSS rose by up to 60 MB between mark-compacts.
 * The dictionaries of two plain objects (`Object.create(null)`, never given fast properties) leave
 * no such pointer when they are rebuilt.
 */
export class InFlightTable<V extends object> {
  private numbers: Record<number, V> = Object.create(null);
  private strings: Record<string, V> = Object.create(null);
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** The entry of `id`; undefined for an id that is neither a string nor a number. */
  get(id: unknown): V | undefined {
    if (typeof id === 'number') return this.numbers[id];
    return typeof id === 'string' ? this.strings[id] : undefined;
  }

  has(id: unknown): boolean {
    return this.get(id) !== undefined;
  }

  set(id: string | number, value: V): void {
    if (this.get(id) === undefined) this.count++;
    if (typeof id === 'number') this.numbers[id] = value;
    else this.strings[id] = value;
  }

  /** Forgets `id`; false when it had no entry (or is neither a string nor a number). */
  delete(id: unknown): boolean {
    if (this.get(id) === undefined) return false;
    this.count--;
    if (typeof id === 'number') delete this.numbers[id];
    else delete this.strings[id as string];
    return true;
  }

  values(): V[] {
    return [...Object.values(this.numbers), ...Object.values(this.strings)];
  }

  clear(): void {
    this.numbers = Object.create(null);
    this.strings = Object.create(null);
    this.count = 0;
  }
}

/** The value of an entry that only marks its id as in flight (a table used as a set). */
export const IN_FLIGHT: Readonly<object> = Object.freeze({});
