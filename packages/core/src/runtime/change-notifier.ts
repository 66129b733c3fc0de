import { randomUUID } from 'node:crypto';
import type { AuthInfo, McpServer as SdkMcpServer } from '@modelcontextprotocol/server';
import { MODERN_REVISION } from '../context/revisions.js';
import { onClosed } from '../seams/sdk-callbacks.js';
import type { CatalogEdit, StateBus } from '../state/app-state.js';
import { readBusMessage } from '../state/bus-message.js';
import type { CallRequest } from './call-request.js';
import type { Caller } from './visibility.js';

/** Where 2026-07-28 `subscriptions/listen` streams are notified (one per HTTP handler). */
export interface ChangeNotifier {
  toolsChanged(): void;
  promptsChanged(): void;
  resourcesChanged(): void;
  resourceUpdated(uri: string): void;
}

/** An SDK server serving one long-lived connection (a 2025-11-25 session, stdio, in memory). */
export interface LiveConnection {
  readonly mcp: SdkMcpServer;
  /** URIs this connection subscribed to with `resources/subscribe` (2025-11-25). */
  readonly subscriptions: Set<string>;
  /** The session and principal of its latest request: whom visibility rules are matched against. */
  sessionId?: string;
  principal?: AuthInfo;
}

/** Remembers who `connection`'s latest request came from (for visibility changes). */
export function noteCaller(connection: LiveConnection, call: CallRequest): void {
  connection.sessionId = call.ctx.source.sessionId;
  connection.principal = call.ctx.principal;
}

/** One change, as it travels between instances. */
interface Change {
  readonly from: string;
  readonly kind: 'tools' | 'prompts' | 'resources' | 'updated';
  readonly uri?: string;
  /** The catalogue edit behind a list change: applied by each instance before it tells its clients. */
  readonly edit?: CatalogEdit;
}

const KIND_OF: Record<CatalogEdit['catalog'], Change['kind']> = {
  tools: 'tools',
  prompts: 'prompts',
  resources: 'resources',
  resourceTemplates: 'resources',
};

/** The notification each change sends to 2025-11-25 sessions. */
const METHODS: Record<Change['kind'], string> = {
  tools: 'notifications/tools/list_changed',
  prompts: 'notifications/prompts/list_changed',
  resources: 'notifications/resources/list_changed',
  updated: 'notifications/resources/updated',
};

/** Sends a notification to every shared session, or to those subscribed to `uri` when given. */
export type SessionsNotifier = (method: string, uri?: string) => Promise<void>;

/**
 * Tells connected clients what changed: list_changed to every long-lived connection, resource
 * updates to those that subscribed, and both to the HTTP endpoints' 2026-07-28 listen streams.
 * Shared (`share`), a change raised on one instance reaches the connections and listen streams
 * of every instance, and the shared 2025-11-25 sessions once, from the instance that raised it.
 */
export class ChangeBroadcaster {
  private readonly live = new Set<LiveConnection>();
  private readonly notifiers = new Set<ChangeNotifier>();
  private readonly instance = randomUUID();
  private shared?: {
    readonly bus: StateBus;
    readonly sessions: SessionsNotifier;
    readonly failed: (error: unknown) => void;
    readonly edit: (edit: CatalogEdit) => void;
  };
  private unsubscribe?: () => Promise<void>;

  /** @param sessionClosed told the id of each session whose connection closed. */
  constructor(private readonly sessionClosed: (sessionId: string) => void = () => undefined) {}

  /**
   * Changes go through `bus` to every instance from now on; `sessions` is told once per change
   * (by the instance that raised it); `failed` hears of a change the bus could not carry; `edit`
   * applies another instance's catalogue edit here.
   */
  async share(
    bus: StateBus,
    sessions: SessionsNotifier,
    failed: (error: unknown) => void,
    edit: (edit: CatalogEdit) => void,
  ): Promise<void> {
    this.shared = { bus, sessions, failed, edit };
    this.unsubscribe = await bus.subscribe('changes', (payload) => this.received(payload));
  }

  async unshare(): Promise<void> {
    const unsubscribe = this.unsubscribe;
    this.unsubscribe = undefined;
    this.shared = undefined;
    await unsubscribe?.();
  }

  /** Keeps `connection` informed until its server closes. */
  track(connection: LiveConnection): void {
    this.live.add(connection);
    const server = connection.mcp.server;
    onClosed(
      server,
      () => {
        this.live.delete(connection);
        if (connection.sessionId !== undefined) this.sessionClosed(connection.sessionId);
      },
      true,
    );
  }

  /** Registers where 2026-07-28 change notifications go; returns the unregister function. */
  addNotifier(notifier: ChangeNotifier): () => void {
    this.notifiers.add(notifier);
    return () => this.notifiers.delete(notifier);
  }

  resourceUpdated(uri: string): Promise<void> {
    return this.raise({ from: this.instance, kind: 'updated', uri });
  }

  toolsChanged(): Promise<void> {
    return this.raise({ from: this.instance, kind: 'tools' });
  }

  resourcesChanged(): Promise<void> {
    return this.raise({ from: this.instance, kind: 'resources' });
  }

  promptsChanged(): Promise<void> {
    return this.raise({ from: this.instance, kind: 'prompts' });
  }

  /** The catalogue was edited here (`edit` already applied): the other instances apply it too, then every client hears of it. */
  catalogEdited(edit: CatalogEdit): Promise<void> {
    return this.raise({ from: this.instance, kind: KIND_OF[edit.catalog], edit });
  }

  /**
   * What `catalog` shows changed for some callers only (visibility rules): the connections of this
   * instance whose caller `affected` selects are told, no other. 2026-07-28 listen streams are
   * not tied to a caller here: each is told, as a list_changed only says "list again".
   */
  visibilityChanged(catalog: CatalogEdit['catalog'], affected: (caller: Caller) => boolean): void {
    const kind = KIND_OF[catalog];
    for (const connection of this.live) {
      const { mcp } = connection;
      if (!mcp.isConnected() || !affected(connection)) continue;
      const sent =
        kind === 'tools'
          ? mcp.server.sendToolListChanged()
          : kind === 'prompts'
            ? mcp.server.sendPromptListChanged()
            : mcp.server.sendResourceListChanged();
      void sent.catch(() => undefined);
    }
    for (const notifier of this.notifiers) {
      if (kind === 'tools') notifier.toolsChanged();
      else if (kind === 'prompts') notifier.promptsChanged();
      else notifier.resourcesChanged();
    }
  }

  /**
   * Applies a change here and, when shared, tells the shared sessions and the other instances.
   * Settles once they were told; never rejects (a failure goes to `failed`).
   */
  private async raise(change: Change): Promise<void> {
    this.apply(change);
    const shared = this.shared;
    if (!shared) return;
    try {
      await Promise.all([shared.sessions(METHODS[change.kind], change.uri), shared.bus.publish('changes', JSON.stringify(change))]);
    } catch (error) {
      shared.failed(error);
    }
  }

  private received(payload: string): void {
    const change = readBusMessage<Change>(payload);
    if (change === undefined) return;
    if (change.from === this.instance) return;
    if (change.edit) this.shared?.edit(change.edit);
    this.apply(change);
  }

  private apply(change: Change): void {
    if (change.kind === 'updated') this.applyResourceUpdated(change.uri as string);
    else if (change.kind === 'tools') this.applyToolsChanged();
    else if (change.kind === 'prompts') this.applyPromptsChanged();
    else this.applyResourcesChanged();
  }

  private applyResourceUpdated(uri: string): void {
    for (const connection of this.live) {
      const modern = connection.mcp.server.getNegotiatedProtocolVersion() === MODERN_REVISION;
      // On a modern stdio connection the SDK routes it to matching subscriptions/listen streams.
      if (modern || connection.subscriptions.has(uri)) void connection.mcp.server.sendResourceUpdated({ uri }).catch(() => undefined);
    }
    for (const notifier of this.notifiers) notifier.resourceUpdated(uri);
  }

  private applyToolsChanged(): void {
    for (const { mcp } of this.live) if (mcp.isConnected()) void mcp.server.sendToolListChanged().catch(() => undefined);
    for (const notifier of this.notifiers) notifier.toolsChanged();
  }

  private applyResourcesChanged(): void {
    for (const { mcp } of this.live) if (mcp.isConnected()) void mcp.server.sendResourceListChanged().catch(() => undefined);
    for (const notifier of this.notifiers) notifier.resourcesChanged();
  }

  private applyPromptsChanged(): void {
    for (const { mcp } of this.live) if (mcp.isConnected()) void mcp.server.sendPromptListChanged().catch(() => undefined);
    for (const notifier of this.notifiers) notifier.promptsChanged();
  }
}
