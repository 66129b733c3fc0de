import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { type SessionRecord, storeUnavailableMessage } from '../../state/app-state.js';
import type { Caller } from '../http/http-caller.js';
import type { DEFAULT_HTTP_LIMITS } from '../http/http-limits.js';
import { messagesOf, type ParsedBody } from '../http/http-messages.js';
import { jsonRpcErrorResponse } from '../wire/json-rpc-error-response.js';
import { idKey } from '../wire/json-rpc-shape.js';
import type { RelayTarget, SessionRelay } from './session-relay.js';
import { applyLogLevel, reviveSession } from './session-revival.js';
import { type ConnectSession, SessionCapReached, type SessionSharing } from './session-sharing.js';
import type { Session, SessionTransport } from './session-transport.js';
import { StreamClaims } from './stream-claims.js';

/** The longest a shared session's record goes without its expiry pushed back while it is used. */
const MAX_REFRESH_MS = 1_000;

/** Thrown by a shared-store operation; answered 503 naming the store. */
class StoreFailure {
  constructor(readonly cause: unknown) {}
}

/** An effect on the shared record whose failure the client is told about, naming the store. */
function naming(store: string, effect: () => Promise<void>): () => Promise<void> {
  return async () => {
    try {
      await effect();
    } catch {
      throw new Error(storeUnavailableMessage(store));
    }
  };
}

/** The session table's side that relayed traffic needs: its copies, and how to drop one. */
export interface SessionCopies {
  get(sessionId: string): Session | undefined;
  set(sessionId: string, session: Session): void;
  /** Drops this instance's copy (its server closed). */
  drop(sessionId: string): void;
}

/**
 * 2025-11-25 sessions several instances share through a shared state: each session's record
 * (owner, revision, capabilities, log level, subscriptions) is stored, a session opened on another
 * instance is re-created here from it, and the client messages and events another instance waits
 * for cross through the relay.
 */
export class SharedSessions implements SessionSharing, RelayTarget {
  readonly shared = true;
  private readonly reviving = new Map<string, Promise<Session | undefined>>();
  /** Sessions whose GET stream is being opened here, with the relayed events held until it is. */
  private readonly opening = new Map<string, { gets: number; held: [eventId: string, message: JSONRPCMessage][] }>();
  private readonly unregister: () => void;

  constructor(
    private readonly relay: SessionRelay,
    private readonly copies: SessionCopies,
    private readonly limits: typeof DEFAULT_HTTP_LIMITS,
  ) {
    this.unregister = relay.register(this);
  }

  claims(): StreamClaims {
    const { relay } = this;
    return new StreamClaims(relay.instance, relay.state.events, relay.state.instances);
  }

  connected(sessionId: string, transport: SessionTransport): void {
    transport.relay = (message) => this.relay.toClient(sessionId, message);
  }

  async store<T>(work: Promise<T>): Promise<T> {
    try {
      return await work;
    } catch (error) {
      throw new StoreFailure(error);
    }
  }

  failure(error: unknown, parsed: ParsedBody | undefined): Response | undefined {
    if (!(error instanceof StoreFailure)) return undefined;
    const messages = messagesOf(parsed);
    const id = messages.length === 1 ? (messages[0]?.id ?? null) : null;
    return jsonRpcErrorResponse(503, -32000, storeUnavailableMessage(this.relay.state.name), id, { 'retry-after': '5' });
  }

  async openingStream(sessionId: string, open: () => Promise<Response>): Promise<Response> {
    let opening = this.opening.get(sessionId);
    if (!opening) {
      opening = { gets: 0, held: [] };
      this.opening.set(sessionId, opening);
    }
    opening.gets++;
    try {
      return await open();
    } finally {
      if (--opening.gets === 0) {
        this.opening.delete(sessionId);
        // The stream is open now (or was refused: then they go where they would have gone).
        for (const [eventId, message] of opening.held) this.written(sessionId, eventId, message);
      }
    }
  }

  /** Once, however many requests for the session arrive together. */
  revive(sessionId: string, caller: Caller, connect: ConnectSession): Promise<Session | undefined> {
    let pending = this.reviving.get(sessionId);
    if (!pending) {
      pending = this.reviveOnce(sessionId, caller, connect).finally(() => this.reviving.delete(sessionId));
      this.reviving.set(sessionId, pending);
    }
    return pending;
  }

  private async reviveOnce(sessionId: string, caller: Caller, connect: ConnectSession): Promise<Session | undefined> {
    const record = await this.store(this.relay.state.sessions.get(sessionId));
    if (!record || record.owner !== caller.owner) return undefined;
    const { server, transport, events } = await connect(sessionId);
    await reviveSession(server.server, transport, sessionId, record);
    const now = Date.now();
    const session: Session = {
      transport,
      server,
      ...(record.owner !== undefined ? { owner: record.owner } : {}),
      ...(record.client !== undefined ? { client: record.client } : {}),
      events,
      opened: now,
      initialized: record.initialized,
      lastSeen: now,
      counted: false,
      ...(record.logLevel !== undefined ? { logLevel: record.logLevel } : {}),
    };
    this.copies.set(sessionId, session);
    return session;
  }

  /**
   * Pushes the shared record's expiry back, and takes what the client changed through another
   * instance, at most once per refresh interval (a tenth of the ttl, at most a second): a session
   * in use keeps at least nine tenths of its ttl after its last call. A level set through another
   * instance is read at the next call all the same (the relay's `changed` comes before its answer),
   * and an ending through another instance drops this copy (the relay's `ended`).
   */
  async refresh(sessionId: string, session: Session): Promise<boolean> {
    const ttl = session.initialized ? this.limits.sessionIdleTimeoutMs : this.limits.sessionInitializeTimeoutMs;
    const now = Date.now();
    if (session.refreshed !== undefined && now - session.refreshed < Math.min(MAX_REFRESH_MS, ttl / 10)) return true;
    // Marked before the round trip, so the calls arriving meanwhile do not touch it again; unmarked if it fails.
    session.refreshed = now;
    const current = await this.store(this.relay.state.sessions.touch(sessionId, ttl)).catch((error: unknown) => {
      session.refreshed = undefined;
      throw error;
    });
    if (!current) {
      this.copies.drop(sessionId);
      return false;
    }
    if (current.logLevel !== undefined && current.logLevel !== session.logLevel) {
      session.logLevel = current.logLevel;
      await applyLogLevel(
        session.server.server,
        session.transport,
        sessionId,
        session.server.server.getNegotiatedProtocolVersion() ?? '',
        current.logLevel,
      );
    }
    return true;
  }

  /**
   * Client messages another instance may be waiting for (answers to its elicitation or sampling
   * requests, cancellations) are relayed.
   */
  async relayed(sessionId: string, session: Session, parsed: ParsedBody | undefined): Promise<boolean> {
    let local = false;
    for (const message of messagesOf(parsed)) {
      const isAnswer = message.method === undefined && message.id !== undefined;
      if (isAnswer && session.transport.awaiting.delete(idKey(message.id))) local = true;
      else if (isAnswer) await this.store(this.relay.fromClient(sessionId, message as JSONRPCMessage));
      else {
        local = true;
        if (message.method === 'notifications/cancelled') await this.store(this.relay.fromClient(sessionId, message as JSONRPCMessage));
      }
    }
    return !local;
  }

  async opened(sessionId: string, session: Session, caller: Caller, body: unknown): Promise<void> {
    const { sessions, name } = this.relay.state;
    const params = (body as { params?: Partial<SessionRecord> }).params ?? {};
    const record = (protocolVersion: string): SessionRecord => ({
      ...(caller.owner !== undefined ? { owner: caller.owner } : {}),
      ...(caller.client !== undefined ? { client: caller.client } : {}),
      protocolVersion,
      capabilities: params.capabilities ?? {},
      clientInfo: params.clientInfo ?? { name: 'unknown', version: 'unknown' },
      initialized: false,
    });
    const ttl = this.limits.sessionInitializeTimeoutMs;
    // Stored before anything is streamed (a store that is away is a 503 here, not a broken stream),
    // and only if the caps, counted over every instance's live sessions, leave room for it.
    const { maxSessions, maxSessionsPerClient } = this.limits;
    const refused = await this.store(
      sessions.open(sessionId, record(String(params.protocolVersion)), ttl, { maxSessions, maxSessionsPerClient }),
    );
    if (refused) throw new SessionCapReached(refused);
    // Then with the revision negotiated, before the client can see its session id and use it elsewhere.
    const id = (body as { id?: unknown }).id ?? null;
    session.transport.onAnswered.set(
      idKey(id),
      naming(name, () =>
        sessions.put(sessionId, record(session.server.server.getNegotiatedProtocolVersion() ?? String(params.protocolVersion)), ttl),
      ),
    );
  }

  record(session: Session, message: { method?: unknown; id?: unknown; params?: Record<string, unknown> }): void {
    const { sessions, name } = this.relay.state;
    const id = session.transport.sessionId as string;
    const uri = String(message.params?.uri);
    const effects: Record<string, () => Promise<void>> = {
      'resources/subscribe': () => sessions.subscribe(id, uri),
      'resources/unsubscribe': () => sessions.unsubscribe(id, uri),
      'logging/setLevel': async () => {
        session.logLevel = String(message.params?.level);
        await sessions.update(id, { logLevel: session.logLevel });
        // Before the answer: the other instances' copies read the record again at their next call.
        await this.relay.changed(id);
      },
    };
    if (message.method === 'notifications/initialized') {
      // From now on the record lives as long as an idle session may.
      void sessions
        .update(id, { initialized: true })
        .then(() => sessions.touch(id, this.limits.sessionIdleTimeoutMs))
        .catch((error: unknown) => session.transport.onerror?.(error as Error));
      return;
    }
    const effect = typeof message.method === 'string' ? effects[message.method] : undefined;
    if (effect && message.id !== undefined) session.transport.onAnswered.set(idKey(message.id), naming(name, effect));
  }

  /** This instance drops only its copy, unless the session ended: then its record and events go, and the other instances drop theirs. */
  async forget(sessionId: string, session: Session, ended: boolean): Promise<void> {
    if (!ended) return;
    // Failures are not the client's: the record lapses with its ttl, the other copies with theirs.
    await Promise.all([
      session.events?.purge().catch(() => undefined),
      this.relay.state.sessions.delete(sessionId).catch(() => undefined),
      this.relay.ended(sessionId).catch(() => undefined),
    ]);
  }

  close(): void {
    this.unregister();
  }

  /** A client message that reached another instance (an answer awaited here, a cancellation): taken here when this copy is concerned. */
  fromClient(sessionId: string, message: JSONRPCMessage): void {
    const session = this.copies.get(sessionId);
    if (!session) return;
    const { transport } = session;
    if (!('method' in message) && 'id' in message && !transport.awaiting.delete(idKey(message.id))) return;
    transport.onmessage?.(message);
  }

  /** An event stored by another instance for the session's GET stream: written if this instance holds it. */
  written(sessionId: string, eventId: string, message: JSONRPCMessage): void {
    const opening = this.opening.get(sessionId);
    if (opening) {
      opening.held.push([eventId, message]);
      return;
    }
    const session = this.copies.get(sessionId);
    if (session) void session.transport.writeRelayed(eventId, message).catch(() => undefined);
  }

  /** The next call refreshes this copy from the record, whatever the refresh interval says. */
  changed(sessionId: string): void {
    const session = this.copies.get(sessionId);
    if (session) session.refreshed = undefined;
  }

  ended(sessionId: string): void {
    this.copies.drop(sessionId);
  }
}
