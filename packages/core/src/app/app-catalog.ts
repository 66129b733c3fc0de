import { visibilityMessages } from '../messages/visibility-messages.js';
import type { ChangeBroadcaster } from '../runtime/change-notifier.js';
import { type CatalogVisibility, isTargeted, type VisibilityTarget } from '../runtime/visibility.js';
import type { CatalogEdit, CatalogEdits } from '../state/app-state.js';
import { Registrations, type Switches, type VisibilityControl } from './registrations.js';

/**
 * The app's run-time catalogue edits (`app.tools.disable('x')`): made here, kept in the shared
 * state so an instance that starts later makes them too, and carried with their list_changed
 * notification to every running instance, which applies them before telling its clients.
 */
export class AppCatalog {
  constructor(
    private readonly catalogs: Readonly<Record<CatalogEdit['catalog'], Switches>>,
    private readonly changes: ChangeBroadcaster,
    private readonly store: CatalogEdits | undefined,
    private readonly failed: (error: unknown) => void,
    private readonly visibility: CatalogVisibility,
  ) {}

  /** Run-time control over one catalog. */
  registrations(catalog: CatalogEdit['catalog']): Registrations {
    return new Registrations(
      this.catalogs[catalog],
      (key, op) => {
        const edit: CatalogEdit = { catalog, key, op };
        this.store?.record(edit).catch(this.failed);
        void this.changes.catalogEdited(edit);
      },
      this.visibilityOf(catalog),
    );
  }

  /** Visibility rules of one catalog: each change is told to the target's connections only. */
  private visibilityOf(catalog: CatalogEdit['catalog']): VisibilityControl {
    const told = (target: VisibilityTarget) => this.changes.visibilityChanged(catalog, (caller) => isTargeted(target, caller));
    return {
      set: (target, show, selector) => {
        for (const name of selector?.names ?? []) {
          if (!this.catalogs[catalog].has(name)) throw new Error(visibilityMessages.unknownName(name, catalog));
        }
        this.visibility.add(catalog, target, show, selector);
        told(target);
      },
      reset: (target) => {
        if (this.visibility.reset(catalog, target)) told(target);
      },
    };
  }

  /** Makes an edit made on another instance here (its notification follows from the broadcaster). */
  readonly apply = (edit: CatalogEdit): void => {
    const catalog = this.catalogs[edit.catalog];
    if (!catalog?.has(edit.key)) return;
    if (edit.op === 'remove') catalog.remove(edit.key);
    else catalog.setEnabled(edit.key, edit.op === 'enable');
  };

  /** Makes the edits the shared state kept (at start-up, before serving). */
  async load(): Promise<void> {
    for (const edit of (await this.store?.all()) ?? []) this.apply(edit);
  }
}
