import type { McpServer as SdkMcpServer } from '@modelcontextprotocol/server';

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
}

const MODERN = '2026-07-28';

/**
 * Tells connected clients what changed: list_changed to every long-lived connection, resource
 * updates to those that subscribed, and both to the HTTP endpoints' 2026-07-28 listen streams.
 */
export class ChangeBroadcaster {
  private readonly live = new Set<LiveConnection>();
  private readonly notifiers = new Set<ChangeNotifier>();

  /** Keeps `connection` informed until its server closes. */
  track(connection: LiveConnection): void {
    this.live.add(connection);
    const server = connection.mcp.server;
    const previous = server.onclose;
    server.onclose = () => {
      this.live.delete(connection);
      previous?.();
    };
  }

  /** Registers where 2026-07-28 change notifications go; returns the unregister function. */
  addNotifier(notifier: ChangeNotifier): () => void {
    this.notifiers.add(notifier);
    return () => this.notifiers.delete(notifier);
  }

  resourceUpdated(uri: string): void {
    for (const connection of this.live) {
      const modern = connection.mcp.server.getNegotiatedProtocolVersion() === MODERN;
      // On a modern stdio connection the SDK routes it to matching subscriptions/listen streams.
      if (modern || connection.subscriptions.has(uri)) void connection.mcp.server.sendResourceUpdated({ uri }).catch(() => undefined);
    }
    for (const notifier of this.notifiers) notifier.resourceUpdated(uri);
  }

  toolsChanged(): void {
    for (const { mcp } of this.live) if (mcp.isConnected()) void mcp.server.sendToolListChanged().catch(() => undefined);
    for (const notifier of this.notifiers) notifier.toolsChanged();
  }

  resourcesChanged(): void {
    for (const { mcp } of this.live) if (mcp.isConnected()) void mcp.server.sendResourceListChanged().catch(() => undefined);
    for (const notifier of this.notifiers) notifier.resourcesChanged();
  }

  promptsChanged(): void {
    for (const { mcp } of this.live) if (mcp.isConnected()) void mcp.server.sendPromptListChanged().catch(() => undefined);
    for (const notifier of this.notifiers) notifier.promptsChanged();
  }
}
