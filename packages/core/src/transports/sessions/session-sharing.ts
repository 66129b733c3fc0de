import type { Caller } from '../http/http-caller.js';
import type { ParsedBody } from '../http/http-messages.js';
import type { Session, SessionTransport } from './session-transport.js';
import type { StreamClaims } from './stream-claims.js';

/** Thrown by `SessionSharing.opened` when a cap that counts every instance's sessions is reached. */
export class SessionCapReached extends Error {
  constructor(readonly cap: 'maxSessions' | 'maxSessionsPerClient') {
    super(`the ${cap} cap is reached`);
  }
}

/** A session table operation that builds a session's server and transport (and its event view). */
export type ConnectSession = (sessionId: string) => Promise<Pick<Session, 'server' | 'transport' | 'events'>>;

/**
 * What differs when instances share 2025-11-25 sessions: the session table (session-table.ts)
 * asks its sharing at each point where another instance may be concerned. `localSessions` is the
 * one process; `SharedSessions` (shared-sessions.ts) keeps records, events and relayed traffic in
 * the shared state.
 */
export interface SessionSharing {
  /** Whether other instances see these sessions (then every request goes through the shared path). */
  readonly shared: boolean;
  /** Claims on the POST streams of a new session's copy here (which instance answers which stream). */
  claims(): StreamClaims | undefined;
  /** A new copy of a session is connected here. */
  connected(sessionId: string, transport: SessionTransport): void;
  /** Work on the shared store, whose failure is answered by `failure`. */
  store<T>(work: Promise<T>): Promise<T>;
  /** The answer to a failure of the shared store, or undefined to let the error through. */
  failure(error: unknown, parsed: ParsedBody | undefined): Response | undefined;
  /**
   * Serves a GET of the session (`open`): what other instances relay to the session's GET stream
   * while this instance revives the session and opens the stream is written to it once it is open,
   * not lost in between.
   */
  openingStream(sessionId: string, open: () => Promise<Response>): Promise<Response>;
  /** A session opened on another instance, re-created here; undefined when none is known for `caller`. */
  revive(sessionId: string, caller: Caller, connect: ConnectSession): Promise<Session | undefined>;
  /** Before serving a session's request: extends its life and takes what the client changed elsewhere; false when it ended meanwhile. */
  refresh(sessionId: string, session: Session): Promise<boolean>;
  /** Relays the client messages another instance waits for; true when nothing is left to serve here. */
  relayed(sessionId: string, session: Session, parsed: ParsedBody | undefined): Promise<boolean>;
  /**
   * A session opened here: recorded before its initialize is answered (`body` is that request);
   * throws `SessionCapReached` when the caps, counted over every instance, leave no room for it.
   */
  opened(sessionId: string, session: Session, caller: Caller, body: unknown): Promise<void>;
  /** What a client message changes in the shared record, done once it succeeded. */
  record(session: Session, message: { method?: unknown; id?: unknown; params?: Record<string, unknown> }): void;
  /** The session is forgotten here; `ended` when it ended for every instance (DELETE). */
  forget(sessionId: string, session: Session, ended: boolean): Promise<void>;
  /** The table closes. */
  close(): void;
}

/** Sessions of this process alone: nothing is stored or relayed elsewhere. */
export const localSessions: SessionSharing = Object.freeze({
  shared: false,
  claims: () => undefined,
  connected: () => undefined,
  store: <T>(work: Promise<T>) => work,
  failure: () => undefined,
  openingStream: (_sessionId: string, open: () => Promise<Response>) => open(),
  revive: async () => undefined,
  refresh: async () => true,
  relayed: async () => false,
  opened: async () => undefined,
  record: () => undefined,
  async forget(_sessionId: string, session: Session) {
    await session.events?.purge().catch(() => undefined);
  },
  close: () => undefined,
});
