/** The run-time switches of one catalog (tools, resources, templates or prompts). */
export interface Switches {
  keys(): string[];
  get(key: string): unknown;
  has(key: string): boolean;
  setEnabled(key: string, enabled: boolean): boolean;
  remove(key: string): boolean;
}

/**
 * Run-time control over one kind of definition (tools, resources, resource templates, prompts).
 * Each change is announced to connected clients with the matching list_changed notification and,
 * with a shared state (`redisState`), made on every instance, including those started later.
 *
 * @example
 * ```ts
 * app.tools.disable('delete_repo');   // hidden from tools/list, calls answer "Unknown tool"
 * app.tools.enable('delete_repo');
 * app.prompts.remove('legacy_prompt'); // gone for good
 * ```
 */
export class Registrations {
  /** @param edited told of each change made (already applied to `catalog`). */
  constructor(
    private readonly catalog: Switches,
    private readonly edited: (key: string, op: 'enable' | 'disable' | 'remove') => void,
  ) {}

  /** Keys (names, or URIs for resources) of everything registered, enabled or not. */
  names(): string[] {
    return this.catalog.keys();
  }

  isEnabled(key: string): boolean {
    return this.catalog.get(key) !== undefined;
  }

  enable(key: string): void {
    if (this.catalog.setEnabled(key, true)) this.edited(key, 'enable');
  }

  disable(key: string): void {
    if (this.catalog.setEnabled(key, false)) this.edited(key, 'disable');
  }

  remove(key: string): void {
    if (!this.catalog.has(key)) throw new Error(`nothing named "${key}" is registered`);
    if (this.catalog.remove(key)) this.edited(key, 'remove');
  }
}
