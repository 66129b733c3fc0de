import type { VisibilitySelector, VisibilityTarget } from '../runtime/visibility.js';

/** Shows or hides entries of one catalog for one session or principal, telling only its clients. */
export interface VisibilityControl {
  set(target: VisibilityTarget, show: boolean, selector: VisibilitySelector): void;
  reset(target: VisibilityTarget): void;
}

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
 * app.tools.showFor(ctx, { tags: ['admin'] }); // the session of this call's client only
 * ```
 */
export class Registrations {
  /** @param edited told of each change made (already applied to `catalog`). */
  constructor(
    private readonly catalog: Switches,
    private readonly edited: (key: string, op: 'enable' | 'disable' | 'remove') => void,
    private readonly visibility: VisibilityControl,
  ) {}

  /**
   * Shows the entries carrying one of `selector.tags`, or named in `selector.names`, to `target`:
   * the session of a handler's `ctx`, a session by id (`{ session }`) or every session of a caller
   * (`{ principal: ctx.principal }`), over what `hiddenTags` and earlier rules hide. Only that target's connected
   * clients get the list_changed notification. Rules live in this process; a session's go when it closes.
   */
  showFor(target: VisibilityTarget, selector: VisibilitySelector): void {
    this.visibility.set(target, true, selector);
  }

  /** Hides the selected entries from `target` (see `showFor`): its lists leave them out, its calls answer as for an unknown name. */
  hideFor(target: VisibilityTarget, selector: VisibilitySelector): void {
    this.visibility.set(target, false, selector);
  }

  /** Drops every rule `target` has in this catalog, back to what everyone sees. */
  resetFor(target: VisibilityTarget): void {
    this.visibility.reset(target);
  }

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
