import type { Client } from '@modelcontextprotocol/client';
import type { Prompt, Resource, ResourceTemplateType, Tool } from '@modelcontextprotocol/server';
import type {
  PromptDefinition,
  RemotePartDefinition,
  ResourceDefinition,
  ResourceTemplateDefinition,
  ToolDefinition,
} from '../builder/definitions.js';
import { MODERN_REVISION } from '../context/revisions.js';
import type { ServerEvents } from '../observability/server-events.js';
import type { Catalog } from '../runtime/catalog.js';
import type { ChangeBroadcaster } from '../runtime/change-notifier.js';
import { remoteEntries } from './remote-entries.js';
import { type LinkListener, RemoteLink } from './remote-link.js';

/** The app's catalogs a remote part's entries join, and who hears of their changes. */
export interface RemoteHost {
  readonly tools: Catalog<ToolDefinition, Tool>;
  readonly prompts: Catalog<PromptDefinition, Prompt>;
  readonly resources: Catalog<ResourceDefinition, Resource>;
  readonly resourceTemplates: Catalog<ResourceTemplateDefinition, ResourceTemplateType>;
  readonly broadcaster: ChangeBroadcaster;
  readonly events: ServerEvents;
}

type Kind = 'tools' | 'prompts' | 'resources' | 'resourceTemplates';
type Descriptor = { readonly descriptor: object };

/**
 * A remote server serving as part of the app: its link, and its catalogue kept in the app's
 * catalogs (added when it connects, brought up to date when it says a list changed or comes back
 * after a restart, kept while it is away so calls get a clear error rather than "unknown tool").
 * The app's clients get list_changed when what they can list changed.
 */
export class RemotePart implements LinkListener {
  private readonly link: RemoteLink;
  /** What this part serves, by catalog: the key and the descriptor's JSON (a change is told only when that differs). */
  private readonly served: Record<Kind, Map<string, string>> = {
    tools: new Map(),
    prompts: new Map(),
    resources: new Map(),
    resourceTemplates: new Map(),
  };
  private started?: Promise<void>;
  /** The entries not served that were told of (`remote-skipped`). */
  private readonly told = new Set<string>();
  private refreshing: Promise<void> = Promise.resolve();
  /** The remote's URIs a client of the app subscribed to (kept over reconnections). */
  private readonly watched = new Set<string>();
  /** The 2026-07-28 stream the remote tells their changes on, and the connection it is on. */
  private listening?: { readonly client: Client; readonly subscription: { close(): Promise<void> } };

  constructor(
    private readonly part: RemotePartDefinition,
    private readonly host: RemoteHost,
    clientInfo: { name: string; version: string },
  ) {
    this.link = new RemoteLink(part, clientInfo, this, host.events);
  }

  /** Connects (once); settles when the first attempt ended, either way: a remote that is away is tried again by itself. */
  start(): Promise<void> {
    this.started ??= this.link.connected().then(
      () => undefined,
      () => undefined,
    );
    return this.started;
  }

  close(): Promise<void> {
    return this.link.close();
  }

  async connected(client: Client): Promise<void> {
    await this.refresh(client);
    // A new connection (the remote restarted, say) knows of no subscription: ask again.
    if (this.watched.size > 0) await this.subscribe(client, [...this.watched]).catch(() => undefined);
  }

  changed(): void {
    this.link.use((client) => this.refresh(client)).catch(() => undefined);
  }

  updated(uri: string): void {
    void this.host.broadcaster.resourceUpdated(this.part.naming.uri(uri) ?? uri);
  }

  /** A client of the app subscribed to the remote's `uri`: the remote is asked to tell of its changes (once). */
  private watch(uri: string): void {
    if (this.watched.has(uri)) return;
    this.watched.add(uri);
    this.link.use((client) => this.subscribe(client, [uri])).catch(() => undefined);
  }

  /** Asks the remote to tell of changes to `uris`: `resources/subscribe` on 2025-11-25, one listen stream for all on 2026-07-28. */
  private async subscribe(client: Client, uris: readonly string[]): Promise<void> {
    if (client.getNegotiatedProtocolVersion() !== MODERN_REVISION) {
      for (const uri of uris) await client.subscribeResource({ uri });
      return;
    }
    const previous = this.listening;
    this.listening = { client, subscription: await client.listen({ resourceSubscriptions: [...this.watched] }) };
    if (previous?.client === client) await previous.subscription.close().catch(() => undefined);
  }

  /** Lists the remote's catalogue and makes the app's catalogs serve it, one refresh at a time. */
  private refresh(client: Client): Promise<void> {
    const next = this.refreshing.then(() => this.sync(client));
    this.refreshing = next.catch(() => undefined);
    return next;
  }

  private async sync(client: Client): Promise<void> {
    const capabilities = client.getServerCapabilities() ?? {};
    const [tools, prompts, resources, resourceTemplates] = await Promise.all([
      capabilities.tools ? client.listTools().then((r) => r.tools) : [],
      capabilities.prompts ? client.listPrompts().then((r) => r.prompts) : [],
      capabilities.resources ? client.listResources().then((r) => r.resources) : [],
      capabilities.resources ? client.listResourceTemplates().then((r) => r.resourceTemplates) : [],
    ]);
    const entries = remoteEntries(
      this.part,
      this.link,
      { tools, prompts, resources, resourceTemplates, completions: capabilities.completions !== undefined },
      capabilities.resources?.subscribe ? (uri) => this.watch(uri) : undefined,
    );
    for (const { name, reason } of entries.skipped) this.skipped(name, reason);
    const { host } = this;
    if (this.apply('tools', host.tools, entries.tools)) void host.broadcaster.toolsChanged();
    if (this.apply('prompts', host.prompts, entries.prompts)) void host.broadcaster.promptsChanged();
    const resourcesChanged = this.apply('resources', host.resources, entries.resources);
    if (this.apply('resourceTemplates', host.resourceTemplates, entries.resourceTemplates) || resourcesChanged)
      void host.broadcaster.resourcesChanged();
  }

  /** Makes `catalog` serve `next` in place of what this part served there; true when anything a client lists changed. */
  private apply<D extends Descriptor & { readonly plan: { readonly guarded: boolean } }, V>(
    kind: Kind,
    catalog: Catalog<D, V>,
    next: ReadonlyMap<string, D>,
  ): boolean {
    const served = this.served[kind];
    let changed = false;
    for (const key of served.keys()) {
      if (next.has(key)) continue;
      catalog.remove(key);
      served.delete(key);
      changed = true;
    }
    for (const [key, definition] of next) {
      const json = JSON.stringify(definition.descriptor);
      if (!served.has(key) && catalog.has(key)) {
        this.skipped(key, 'the app already serves that name');
        continue;
      }
      if (served.get(key) === json) continue;
      catalog.put(key, definition, definition.descriptor as V);
      served.set(key, json);
      changed = true;
    }
    return changed;
  }

  /** Tells of an entry not served, once per name and reason: every later listing finds it again. */
  private skipped(name: string, reason: string): void {
    const key = `${name}\n${reason}`;
    if (this.told.has(key)) return;
    this.told.add(key);
    this.host.events.emit({ event: 'remote-skipped', part: this.part.naming.where, name, reason });
  }
}
