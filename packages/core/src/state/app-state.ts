import type { EventStore, JSONRPCMessage } from '@modelcontextprotocol/server';
import type { RateLimitStore } from './rate-limit-store.js';
import type { TaskStore } from './task-store.js';

/**
 * What a 2025-11-25 session needs so that any instance can serve it: who may use it, what was
 * negotiated at `initialize`, and what the client set since (log level, subscriptions).
 */
export interface SessionRecord {
  /** Who opened the session (with auth on): another caller may not use it. */
  readonly owner?: string;
  /** The client it counts against (subject or peer IP). */
  readonly client?: string;
  readonly protocolVersion: string;
  readonly capabilities: Record<string, unknown>;
  readonly clientInfo: { readonly name: string; readonly version: string } & Record<string, unknown>;
  /** True once the client sent `notifications/initialized`. */
  readonly initialized: boolean;
  /** The level set with `logging/setLevel`, if any. */
  readonly logLevel?: string;
}

/** The sessions every instance can see. Records expire `ttlMs` after they were last touched. */
/** The session caps that count every instance's sessions when they share a state. */
export interface SessionCaps {
  readonly maxSessions: number;
  readonly maxSessionsPerClient: number;
}

export interface SessionRecords {
  get(id: string): Promise<SessionRecord | undefined>;
  /**
   * Stores a new session's record, if the caps allow one more (counting the live sessions of every
   * instance, and those of `record.client`), atomically; else stores nothing and names the cap.
   */
  open(id: string, record: SessionRecord, ttlMs: number, caps: SessionCaps): Promise<keyof SessionCaps | undefined>;
  put(id: string, record: SessionRecord, ttlMs: number): Promise<void>;
  /** Changes some fields of a live record (its expiry is kept). */
  update(id: string, patch: Partial<Pick<SessionRecord, 'initialized' | 'logLevel'>>): Promise<void>;
  /**
   * Pushes the expiry back `ttlMs` (the session was used) and returns the fields other instances
   * may have changed, or undefined when the session no longer exists.
   */
  touch(id: string, ttlMs: number): Promise<Pick<SessionRecord, 'logLevel'> | undefined>;
  delete(id: string): Promise<void>;
  subscribe(id: string, uri: string): Promise<void>;
  unsubscribe(id: string, uri: string): Promise<void>;
  /** Live sessions that subscribed to `uri`. */
  subscribers(uri: string): Promise<string[]>;
  /** Every live session. */
  all(): Promise<string[]>;
}

/** An event store a session's streams can be replayed from on any instance, and purged by prefix. */
export interface SharedEventStore extends EventStore {
  getStreamIdForEventId(eventId: string): Promise<string | undefined>;
  purge(streamPrefix: string): Promise<void>;
  /**
   * Stores `message` like `storeEvent` and, in the same step, publishes `notice(eventId)` on the
   * bus's `topic`: every instance then hears of a stream's events in the order they were stored.
   */
  storeAndPublish(streamId: string, message: JSONRPCMessage, topic: BusTopic, notice: (eventId: string) => string): Promise<string>;
  /**
   * Stores `messages`, in order, as the next events of `streamId`, all in one step, and with
   * `claim` records in the same step that instance `claim.owner` answers the requests
   * `claim.requestIds` on the stream; their ids (none for a claim alone).
   */
  storeEvents(streamId: string, messages: readonly JSONRPCMessage[], claim?: StreamClaim): Promise<string[]>;
  /**
   * Throws, saying why, while a call to the store would fail at once (its connection is down): a
   * session's request is then refused before it runs, not answered without its events stored.
   */
  assertReachable?(): void;
  /** Who answers on `streamId`, if it was claimed (and its events are still held). */
  streamClaim(streamId: string): Promise<StreamClaim | undefined>;
}

/** The instance answering a POST's stream, and the requests it answers there. */
export interface StreamClaim {
  readonly owner: string;
  readonly requestIds: readonly (string | number)[];
}

/** Which instances are alive: each renews its lease while it runs; a lease not renewed lapses. */
export interface InstanceLeases {
  renew(instance: string, ttlMs: number): Promise<void>;
  alive(instance: string): Promise<boolean>;
}

/** Messages between the instances of one app (every instance gets every message, its own included). */
export interface StateBus {
  publish(topic: BusTopic, payload: string): Promise<void>;
  /** Calls `handler` for each message on `topic` until the returned function is called. */
  subscribe(topic: BusTopic, handler: (payload: string) => void): Promise<() => Promise<void>>;
}

/** `changes`: list-changed and resource-updated events; `sessions`: traffic for one session's instance. */
export type BusTopic = 'changes' | 'sessions';

/**
 * Where an app keeps what must outlive one request: the seam between one process (`memoryState()`,
 * the default) and several instances sharing a store (`redisState()` from `@armature/redis`).
 * Tasks (`@Tool({ task })`) keep their records in the state's task store when it has one.
 */
/** A change of the catalogue at run time (`app.tools.disable('x')`), as instances sharing a state keep and exchange it. */
export interface CatalogEdit {
  readonly catalog: 'tools' | 'prompts' | 'resources' | 'resourceTemplates';
  /** The tool or prompt name, the resource URI or the template name. */
  readonly key: string;
  readonly op: 'enable' | 'disable' | 'remove';
}

/** The catalogue edits of every instance, so an instance that starts later applies them too (the last one per entry wins). */
export interface CatalogEdits {
  record(edit: CatalogEdit): Promise<void>;
  all(): Promise<CatalogEdit[]>;
}

/**
 * Leases on long-lived streams of a client (2026-07-28 `subscriptions/listen`), counted over every
 * instance: held while the stream is open (renewed), dropped when it ends or its instance dies.
 */
export interface StreamLeases {
  /** A lease id when fewer than `max` streams of `client` are held across instances (then one more is), else undefined. */
  acquire(client: string, max: number, ttlMs: number): Promise<string | undefined>;
  renew(client: string, lease: string, ttlMs: number): Promise<void>;
  release(client: string, lease: string): Promise<void>;
}

export interface AppState {
  /** Named in errors, e.g. `redis`. */
  readonly name: string;
  /** True when several instances share this state: sessions, events and changes then go through it. */
  readonly shared: boolean;
  readonly sessions?: SessionRecords;
  readonly events?: SharedEventStore;
  readonly bus?: StateBus;
  readonly instances?: InstanceLeases;
  /** Where tasks live when the `tasks.store` option names none (a shared state shares them too). */
  readonly tasks?: TaskStore;
  /** The listen streams of each client, counted over every instance. */
  readonly listens?: StreamLeases;
  /** The run-time catalogue edits instances share (`app.tools.disable` on one reaches all). */
  readonly catalog?: CatalogEdits;
  /** Rate-limit counts every instance shares (`@RateLimit`, `rateLimits`, the HTTP `rateLimit`); default: this process's memory. */
  readonly rateLimits?: RateLimitStore;
  /**
   * Resolves when the store answers, rejects (saying why) when it cannot be reached: what the
   * HTTP readiness path asks. A state of the process alone has nothing to ask.
   */
  ping?(): Promise<void>;
  close(): Promise<void>;
}

/** A shared state, with every part present. */
export interface SharedState extends AppState {
  readonly shared: true;
  readonly sessions: SessionRecords;
  readonly events: SharedEventStore;
  readonly bus: StateBus;
  readonly instances: InstanceLeases;
}

export function isShared(state: AppState): state is SharedState {
  return (
    state.shared && state.sessions !== undefined && state.events !== undefined && state.bus !== undefined && state.instances !== undefined
  );
}

/** The one text for a request the shared store could not serve. */
export function storeUnavailableMessage(name: string): string {
  return `Service Unavailable: the ${name} state store is unreachable, so this session cannot be served; retry later`;
}
