import { randomUUID } from 'node:crypto';
import type { EventStore, JSONRPCMessage } from '@modelcontextprotocol/server';
import type { SharedEventStore } from '../../state/app-state.js';
import { LEASE_MS, type StreamClaims } from './stream-claims.js';

/** The standalone (GET) stream's id inside a session, as the SDK names it. */
export const GET_STREAM = '_GET_stream';

/** A store that can forget a finished session's events (`InMemoryEventStore` can). */
interface PurgeableEventStore extends EventStore {
  purge(streamPrefix: string): Promise<void>;
}

function isPurgeable(store: EventStore): store is PurgeableEventStore {
  return typeof (store as Partial<PurgeableEventStore>).purge === 'function';
}

function isResponse(message: JSONRPCMessage): boolean {
  return !('method' in message) && 'id' in message;
}

/** Stores `messages` in order: in one step when the store can (a shared one), else one by one. */
async function storeInOrder(store: EventStore, streamId: string, messages: readonly JSONRPCMessage[]): Promise<string[]> {
  const shared = store as Partial<SharedEventStore>;
  if (shared.storeEvents) return shared.storeEvents(streamId, messages);
  const ids: string[] = [];
  for (const message of messages) ids.push(await store.storeEvent(streamId, message));
  return ids;
}

/** The ids of the events a POST stream opened with (`SessionEventStore.openStream`). */
export interface OpenedStream {
  /** The priming event's, when the stream has one. */
  readonly primingId?: string;
  /** Those of the messages it opened with, in order. */
  readonly eventIds: readonly string[];
}

/**
 * One session's view of the endpoint's shared event store. Stream ids are stored under the
 * session's id, so a `Last-Event-ID` from another session (or another user) is not this session's
 * and is refused before anything is replayed, and the session's events can be purged when it ends.
 */
export class SessionEventStore implements EventStore {
  private readonly prefix: string;
  private adopted?: string;
  private muted = false;
  /** POST streams opened here and not answered yet (claimed when instances share sessions). */
  private readonly open = new Set<string>();
  /**
   * The streams of requests Armature answers itself here, until answered: what a resume of one
   * waits on (`follow`), each told when an event of its stream is stored.
   */
  private readonly answering = new Map<string, Set<() => void>>();
  /** POST streams the SDK's transport frames on this instance, not answered yet: a resume of one is its to serve. */
  private readonly framedBySdk = new Set<string>();
  /** The responses still due on the streams Armature answers that answer more than one request (a batch). */
  private readonly due = new Map<string, number>();

  /**
   * @param shared must implement `getStreamIdForEventId` (the endpoint checks it at start-up).
   * @param claims given when instances share sessions: who answers each POST stream.
   */
  constructor(
    private readonly shared: EventStore,
    sessionId: string,
    readonly claims?: StreamClaims,
  ) {
    this.prefix = `${sessionId}/`;
  }

  storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    const adopted = this.adopted;
    if (adopted !== undefined) {
      this.adopted = undefined;
      return Promise.resolve(adopted);
    }
    if (this.muted) return Promise.resolve(randomUUID());
    if (streamId !== GET_STREAM && !this.answering.has(streamId)) {
      if (isResponse(message)) this.framedBySdk.delete(streamId);
      else this.framedBySdk.add(streamId);
    }
    const last = this.isLast(streamId, message);
    const stored =
      this.claims && streamId !== GET_STREAM
        ? this.storeClaimed(streamId, message, last)
        : this.shared.storeEvent(this.prefix + streamId, message);
    const waiting = this.answering.get(streamId);
    if (!waiting) return stored;
    return stored.finally(() => {
      if (last) this.answering.delete(streamId);
      for (const stored of waiting) stored();
    });
  }

  /** Whether `message` is the last response of its stream (of a batch's, the last one due). */
  private isLast(streamId: string, message: JSONRPCMessage): boolean {
    if (!isResponse(message)) return false;
    const due = this.due.get(streamId);
    if (due === undefined) return true;
    if (due > 1) this.due.set(streamId, due - 1);
    else this.due.delete(streamId);
    return due <= 1;
  }

  /**
   * Opens a POST stream whose requests (`requestIds`) Armature answers itself, with its first
   * messages (`first`, the answer last when it came already): stored after its priming event
   * (SEP-1699) when `priming`, all in one step of the store, the stream claimed for the requests
   * in the same step when instances share sessions and it is not answered yet. Its later events
   * are stored with `storeEvent`.
   */
  async openStream(
    streamId: string,
    requestIds: (string | number)[],
    priming: boolean,
    first: readonly JSONRPCMessage[],
  ): Promise<OpenedStream> {
    const due = requestIds.length - first.filter(isResponse).length;
    const answered = due <= 0;
    if (!answered) this.answering.set(streamId, new Set());
    if (due > 1) this.due.set(streamId, due);
    const messages = priming ? [{} as JSONRPCMessage, ...first] : first;
    let ids: string[];
    if (this.claims && !answered) {
      this.open.add(streamId);
      ids = await this.claims.claimFor(this.prefix + streamId, requestIds, messages);
    } else ids = await storeInOrder(this.shared, this.prefix + streamId, messages);
    return priming ? { primingId: ids[0], eventIds: ids.slice(1) } : { eventIds: ids };
  }

  /** Throws, saying why, while the shared store cannot be reached (see `SharedEventStore.assertReachable`). */
  async reachable(): Promise<void> {
    (this.shared as Partial<SharedEventStore>).assertReachable?.();
  }

  /** The first event of a POST stream claims it; its (`last`) response ends what this store remembers of it. */
  private async storeClaimed(streamId: string, message: JSONRPCMessage, last: boolean): Promise<string> {
    if (!this.open.has(streamId)) {
      this.open.add(streamId);
      await this.claims?.claim(this.prefix + streamId);
    }
    if (last) this.open.delete(streamId);
    return this.shared.storeEvent(this.prefix + streamId, message);
  }

  /**
   * The next `storeEvent` returns `eventId` and stores nothing: the event is already stored (by
   * another instance) and is only to be written to this instance's stream. The transport calls
   * `storeEvent` synchronously at the start of `send`, so the id cannot go to another message.
   */
  adopt(eventId: string): void {
    this.adopted = eventId;
  }

  /** Runs `work` storing nothing (a session re-created on this instance from its stored record). */
  async muting<T>(work: () => Promise<T>): Promise<T> {
    this.muted = true;
    try {
      return await work();
    } finally {
      this.muted = false;
    }
  }

  async getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    const streamId = await this.shared.getStreamIdForEventId?.(eventId);
    return streamId?.startsWith(this.prefix) ? streamId.slice(this.prefix.length) : undefined;
  }

  /** Whether `streamId` is a POST stream the SDK's transport still frames on this instance. */
  framesBySdk(streamId: string): boolean {
    return this.framedBySdk.has(streamId);
  }

  /** True when `eventId` is one of this session's events (still held). */
  async owns(eventId: string): Promise<boolean> {
    return (await this.getStreamIdForEventId(eventId)) !== undefined;
  }

  async replayEventsAfter(
    lastEventId: string,
    { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> },
  ): Promise<string> {
    // Checked again here, not only by the endpoint: the transport calls this directly.
    const resumed = await this.getStreamIdForEventId(lastEventId);
    if (resumed === undefined) return '';
    // Still answered here when the replay starts: followed until it is.
    const answering = this.answering.has(resumed);
    const answered = new Set<string | number>();
    let last = lastEventId;
    const forward = (eventId: string, message: JSONRPCMessage) => {
      last = eventId;
      if (!('method' in message) && 'id' in message) answered.add(message.id as string | number);
      return send(eventId, message);
    };
    const streamId = await this.shared.replayEventsAfter(lastEventId, { send: forward });
    if (!streamId.startsWith(this.prefix)) return '';
    const own = streamId.slice(this.prefix.length);
    if (answering) await this.follow(own, () => this.shared.replayEventsAfter(last, { send: forward }));
    const owed = await this.claims?.owed(streamId, answered, async () => {
      await this.shared.replayEventsAfter(last, { send: forward });
    });
    // Stored as well, so a later resume replays them instead of owing them again.
    for (const message of owed ?? []) await send(await this.shared.storeEvent(streamId, message), message);
    return own;
  }

  /**
   * A resumed stream whose request Armature still answers on this instance: `more` sends the events
   * stored since, each time one is, until the answer is (the SDK's transport knows nothing of the
   * stream, so it writes nothing more to the resumed one), or one lease period passed: the client
   * then resumes again, as from a stream another instance answers.
   */
  private async follow(streamId: string, more: () => Promise<unknown>): Promise<void> {
    const deadline = Date.now() + LEASE_MS;
    for (let waiting = this.answering.get(streamId); waiting; waiting = this.answering.get(streamId)) {
      const left = deadline - Date.now();
      if (left <= 0) {
        await more();
        return;
      }
      const listeners = waiting;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, left);
        function done() {
          clearTimeout(timer);
          listeners.delete(done);
          resolve();
        }
        listeners.add(done);
      });
      await more();
    }
    // The events stored since the last read (the answer among them; nothing when it was read already).
    await more();
  }

  /** Forgets the session's events, when the shared store can (a custom store without `purge` keeps them until it evicts them). */
  async purge(): Promise<void> {
    if (isPurgeable(this.shared)) await this.shared.purge(this.prefix);
  }
}
