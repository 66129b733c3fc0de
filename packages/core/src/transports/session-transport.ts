import {
  type JSONRPCMessage,
  type McpServer as SdkMcpServer,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import type { SessionEventStore } from './session-event-store.js';

/** A session's transport that knows which of the client's request ids are still unanswered. */
export class SessionTransport extends WebStandardStreamableHTTPServerTransport {
  readonly inFlight = new Set<string>();

  override async send(message: JSONRPCMessage, options?: Parameters<WebStandardStreamableHTTPServerTransport['send']>[1]) {
    try {
      await super.send(message, options);
    } finally {
      // Forgotten only once the response is on its stream, so a reused id cannot take the stream over first.
      if (!('method' in message) && 'id' in message) this.inFlight.delete(idKey(message.id));
    }
  }
}

export interface Session {
  readonly transport: SessionTransport;
  readonly server: SdkMcpServer;
  /** Who opened the session (with auth on): another caller may not use it. */
  readonly owner?: string;
  readonly client?: string;
  readonly events?: SessionEventStore;
  readonly opened: number;
  initialized: boolean;
  lastSeen: number;
}

export function idKey(id: unknown): string {
  return `${typeof id}:${String(id)}`;
}
