import { randomUUID } from 'node:crypto';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import type { SharedState } from '../../state/app-state.js';
import { readBusMessage } from '../../state/bus-message.js';
import { GET_STREAM } from './session-event-store.js';
import { LEASE_MS } from './stream-claims.js';

/** How often an instance renews its lease. */
const RENEW_MS = 1_000;

/** What an instance holding a copy of a session does with relayed traffic. */
export interface RelayTarget {
  /** An event another instance stored on the session's GET stream: write it if this instance holds that stream. */
  written(sessionId: string, eventId: string, message: JSONRPCMessage): void;
  /** A client message that reached another instance (an answer, a cancellation). */
  fromClient(sessionId: string, message: JSONRPCMessage): void;
  /** The client changed the session's record (its log level) through another instance. */
  changed(sessionId: string): void;
  /** The session ended on another instance. */
  ended(sessionId: string): void;
}

type Relayed =
  | { readonly kind: 'event'; readonly from: string; readonly session: string; readonly event: string; readonly message: JSONRPCMessage }
  | { readonly kind: 'client'; readonly from: string; readonly session: string; readonly message: JSONRPCMessage }
  | { readonly kind: 'changed'; readonly from: string; readonly session: string }
  | { readonly kind: 'ended'; readonly from: string; readonly session: string };

/**
 * Carries a 2025-11-25 session's traffic between the instances sharing it: a message for the
 * client's GET stream is stored once in the shared event store and written by the instance that
 * holds the stream; a client's message that another instance is waiting for reaches it. One per
 * app (every HTTP endpoint of the app registers its sessions here).
 */
export class SessionRelay {
  readonly instance = randomUUID();
  private readonly targets = new Set<RelayTarget>();
  private unsubscribe?: () => Promise<void>;
  private lease?: NodeJS.Timeout;

  constructor(readonly state: SharedState) {}

  /** Listens to the other instances, and keeps this instance's lease while it runs. */
  async start(): Promise<void> {
    this.unsubscribe ??= await this.state.bus.subscribe('sessions', (payload) => this.received(payload));
    if (this.lease) return;
    const renew = () => this.state.instances.renew(this.instance, LEASE_MS);
    await renew();
    // A missed renewal (Redis away) is retried at the next tick; the lease only lapses after LEASE_MS.
    this.lease = setInterval(() => void renew().catch(() => undefined), RENEW_MS);
    this.lease.unref();
  }

  register(target: RelayTarget): () => void {
    this.targets.add(target);
    return () => this.targets.delete(target);
  }

  /** Stores `message` on the session's GET stream and has the instance holding that stream write it. */
  async toClient(sessionId: string, message: JSONRPCMessage): Promise<void> {
    await this.state.events.storeAndPublish(`${sessionId}/${GET_STREAM}`, message, 'sessions', (event) =>
      JSON.stringify({ kind: 'event', from: this.instance, session: sessionId, event, message } satisfies Relayed),
    );
  }

  /** Tells the other instances about a client message they may be waiting for. */
  fromClient(sessionId: string, message: JSONRPCMessage): Promise<void> {
    return this.publish({ kind: 'client', from: this.instance, session: sessionId, message });
  }

  /** Tells the other instances that the session's record changed (published after the change is stored). */
  changed(sessionId: string): Promise<void> {
    return this.publish({ kind: 'changed', from: this.instance, session: sessionId });
  }

  ended(sessionId: string): Promise<void> {
    return this.publish({ kind: 'ended', from: this.instance, session: sessionId });
  }

  /** Sends `notification` to every live session (`undefined`) or to those subscribed to `uri`. */
  async notifySessions(method: string, uri?: string): Promise<void> {
    const { sessions } = this.state;
    const ids = uri === undefined ? await sessions.all() : await sessions.subscribers(uri);
    const message = { jsonrpc: '2.0', method, ...(uri === undefined ? {} : { params: { uri } }) } as JSONRPCMessage;
    await Promise.all(ids.map((id) => this.toClient(id, message)));
  }

  async close(): Promise<void> {
    clearInterval(this.lease);
    this.lease = undefined;
    const unsubscribe = this.unsubscribe;
    this.unsubscribe = undefined;
    await unsubscribe?.();
  }

  private publish(relayed: Relayed): Promise<void> {
    return this.state.bus.publish('sessions', JSON.stringify(relayed));
  }

  private received(payload: string): void {
    const relayed = readBusMessage<Relayed>(payload);
    if (relayed === undefined) return;
    for (const target of this.targets) {
      // Every instance writes stored events (the one holding the stream is the only one that can);
      // client messages, changes and endings were already handled where they arrived.
      if (relayed.kind === 'event') target.written(relayed.session, relayed.event, relayed.message);
      else if (relayed.from === this.instance) continue;
      else if (relayed.kind === 'client') target.fromClient(relayed.session, relayed.message);
      else if (relayed.kind === 'changed') target.changed(relayed.session);
      else target.ended(relayed.session);
    }
  }
}
