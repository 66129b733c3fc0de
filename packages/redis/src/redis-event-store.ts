import { randomUUID } from 'node:crypto';
import type { BusTopic, SharedEventStore, StreamClaim } from '@armature/core';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import type { Connection } from './connection.js';
import { channelOf } from './redis-bus.js';
import { setChunks } from './set-chunks.js';

export interface RedisEventLimits {
  /** Most events one stream keeps; the oldest are dropped first. */
  readonly maxEventsPerStream: number;
  /** Most bytes of serialized messages one stream keeps; the oldest are dropped first. */
  readonly maxBytesPerStream: number;
  /** A stream nobody wrote to for this long is dropped, with its events. */
  readonly ttlMs: number;
}

// Appends the events of one or more streams (each a Redis stream) in one step. For each stream
// (ARGV from 5 on: its id, its session's prefix, a channel, a notice, a claim, its number of events,
// then each event's id, message and byte length): each event under its opaque id, then the oldest
// events dropped past the count and byte budgets, their ids forgotten so a Last-Event-ID naming one
// is refused like an unknown one; the stream's keys live for the ttl after its last step. With a
// channel, the notice is published in the same step (instances hear of events in stream order);
// with a claim, it is recorded (a POST stream opened). Every key is built from ARGV[4], the events'
// hash-tagged prefix, so all are in the slot of KEYS[1] (declared for routing: on a cluster,
// ioredis's auto-pipelining groups commands by their first key).
const STORE = `
local ttl, prefix = ARGV[3], ARGV[4]
local at = 5
while at <= #ARGV do
  local streamId, session, channel, notice, claim, n = ARGV[at], ARGV[at + 1], ARGV[at + 2], ARGV[at + 3], ARGV[at + 4], tonumber(ARGV[at + 5])
  at = at + 6
  local stream, bytes = prefix .. 'ev:' .. streamId, prefix .. 'evb:' .. streamId
  local added = 0
  for _ = 1, n do
    local entry = redis.call('XADD', stream, '*', 'e', ARGV[at], 'm', ARGV[at + 1], 'b', ARGV[at + 2])
    redis.call('SET', prefix .. 'eid:' .. ARGV[at], streamId .. '\\n' .. entry, 'PX', ttl)
    added = added + tonumber(ARGV[at + 2])
    at = at + 3
  end
  local total = redis.call('INCRBY', bytes, added)
  local count = redis.call('XLEN', stream)
  while count > 0 and (count > tonumber(ARGV[1]) or total > tonumber(ARGV[2])) do
    local oldest = redis.call('XRANGE', stream, '-', '+', 'COUNT', 1)[1]
    redis.call('XDEL', stream, oldest[1])
    local fields = oldest[2]
    for i = 1, #fields, 2 do
      if fields[i] == 'b' then total = redis.call('DECRBY', bytes, fields[i + 1])
      elseif fields[i] == 'e' then redis.call('DEL', prefix .. 'eid:' .. fields[i + 1]) end
    end
    count = count - 1
  end
  redis.call('PEXPIRE', stream, ttl)
  redis.call('PEXPIRE', bytes, ttl)
  local set = prefix .. 'evs:' .. session
  redis.call('SADD', set, streamId)
  redis.call('PEXPIRE', set, ttl)
  if channel ~= '' then redis.call('PUBLISH', channel, notice) end
  if claim ~= '' then redis.call('SET', prefix .. 'evo:' .. streamId, claim, 'PX', ttl) end
end
return 1
`;

/** The most streams one script stores, and the bytes of messages past which it takes no more (the rest wait for the next one). */
const MAX_BATCH = 64;
const MAX_BATCH_BYTES = 1024 * 1024;

/** A settled promise: a store waits a turn of the microtask queue for others of the same turn. */
const settledTurn = Promise.resolve();

/** The events of one stream waiting for the next script: its part of ARGV, and its caller. */
interface Pending {
  readonly streamId: string;
  readonly args: readonly (string | number)[];
  /** The bytes of its messages. */
  readonly bytes: number;
  readonly done: () => void;
  readonly failed: (error: unknown) => void;
}

/**
 * The resumable events of every instance's 2025-11-25 sessions, on Redis: one Redis stream per SSE
 * stream (in order), each event under an opaque id that names neither session nor stream, each
 * stream within its count and byte budget. A client resuming with `Last-Event-ID` on any instance
 * gets every later event of that stream once, in order.
 */
export class RedisEventStore implements SharedEventStore {
  private readonly store: ReturnType<Connection['script']>;
  /** The stores waiting for the next script. */
  private readonly pending: Pending[] = [];
  /** Whether a script is under way (or about to be sent). */
  private running = false;

  constructor(
    private readonly connection: Connection,
    /** Prefix of every key (hash-tagged: a stream's keys and event ids share one cluster slot). */
    private readonly prefix: string,
    /** Prefix of the channels (untagged, as the bus names them). */
    private readonly channels: string,
    private readonly limits: RedisEventLimits,
    /** Waits for Redis to (re)connect, within a bound, before a relayed event (`storeAndPublish`). */
    private readonly settled: () => Promise<void>,
  ) {
    this.store = connection.script('armatureStoreEvents', 1, STORE);
  }

  async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    return (await this.append(streamId, [message], '', () => '', ''))[0] as string;
  }

  /** Waits for the connection within its bound: a relayed message is delayed by a reconnection, not lost. */
  async storeAndPublish(streamId: string, message: JSONRPCMessage, topic: BusTopic, notice: (eventId: string) => string): Promise<string> {
    await this.settled();
    return (await this.append(streamId, [message], channelOf(this.channels, topic), notice, ''))[0] as string;
  }

  /** In one script, whatever the number of messages: one per POST stream opened with its answer, or less. */
  storeEvents(streamId: string, messages: readonly JSONRPCMessage[], claim?: StreamClaim): Promise<string[]> {
    return this.append(streamId, messages, '', () => '', claim ? JSON.stringify(claim) : '');
  }

  /** Fails at once, naming the server, while the connection is down. */
  assertReachable(): void {
    void this.connection.ready;
  }

  /**
   * Stores `messages` as the next events of `streamId`. Stores of several streams go to Redis
   * together, in one script: those of the same turn, and those that arrive while a script is
   * under way (which then waits for it). Each caller learns of its own once the script ran.
   */
  private append(
    streamId: string,
    messages: readonly JSONRPCMessage[],
    channel: string,
    notice: (lastEventId: string) => string,
    claim: string,
  ): Promise<string[]> {
    const eventIds: string[] = [];
    const events: (string | number)[] = [];
    let bytes = 0;
    for (const message of messages) {
      const eventId = randomUUID();
      const json = JSON.stringify(message);
      const length = Buffer.byteLength(json);
      eventIds.push(eventId);
      events.push(eventId, json, length);
      bytes += length;
    }
    const session = streamId.slice(0, streamId.indexOf('/') + 1);
    const args = [streamId, session, channel, notice(eventIds.at(-1) ?? ''), claim, messages.length, ...events];
    return new Promise<string[]>((resolve, reject) => {
      this.pending.push({ streamId, args, bytes, done: () => resolve(eventIds), failed: reject });
      if (this.running) return;
      this.running = true;
      settledTurn.then(() => this.flush());
    });
  }

  /** Runs one script for the stores waiting, then the next one for those that came meanwhile. */
  private flush(): void {
    let taken = 0;
    let bytes = 0;
    for (const pending of this.pending) {
      if (taken === MAX_BATCH || (taken > 0 && bytes + pending.bytes > MAX_BATCH_BYTES)) break;
      taken++;
      bytes += pending.bytes;
    }
    const batch = this.pending.splice(0, taken);
    const first = batch[0];
    if (!first) {
      this.running = false;
      return;
    }
    const { maxEventsPerStream, maxBytesPerStream, ttlMs } = this.limits;
    const args: (string | number)[] = [this.streamKey(first.streamId), maxEventsPerStream, maxBytesPerStream, ttlMs, this.prefix];
    for (const pending of batch) for (const arg of pending.args) args.push(arg);
    let ran: Promise<unknown>;
    try {
      ran = this.store(...args);
    } catch (error) {
      ran = Promise.reject(error);
    }
    ran.then(
      () => {
        for (const pending of batch) pending.done();
        this.flush();
      },
      (error: unknown) => {
        for (const pending of batch) pending.failed(error);
        this.flush();
      },
    );
  }

  async getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    return (await this.locate(eventId))?.streamId;
  }

  async replayEventsAfter(
    lastEventId: string,
    { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> },
  ): Promise<string> {
    const at = await this.locate(lastEventId);
    if (!at) return '';
    const entries = await this.connection.ready.xrange(this.streamKey(at.streamId), `(${at.entry}`, '+');
    for (const [, fields] of entries) {
      const field = (name: string) => fields[fields.indexOf(name) + 1] as string;
      await send(field('e'), JSON.parse(field('m')) as JSONRPCMessage);
    }
    return at.streamId;
  }

  /**
   * Drops every stream whose id starts with `streamPrefix` (a session that ended), a chunk of the
   * session's set at a time: a long session holds tens of thousands of streams, and one DEL of
   * them all crashed the process inside ioredis. UNLINK frees the streams' memory off Redis's main
   * thread. Every key has the events' hash tag, so each command stays in one cluster slot.
   */
  async purge(streamPrefix: string): Promise<void> {
    const redis = this.connection.ready;
    const set = `${this.prefix}evs:${streamPrefix}`;
    for await (const streams of setChunks(redis, set)) {
      await redis.unlink(streams.flatMap((s) => [this.streamKey(s), `${this.prefix}evb:${s}`, this.claimKey(s)]));
    }
    await redis.unlink(set);
  }

  async streamClaim(streamId: string): Promise<StreamClaim | undefined> {
    const value = await this.connection.ready.get(this.claimKey(streamId));
    return value === null ? undefined : (JSON.parse(value) as StreamClaim);
  }

  private claimKey(streamId: string): string {
    return `${this.prefix}evo:${streamId}`;
  }

  private async locate(eventId: string): Promise<{ streamId: string; entry: string } | undefined> {
    const value = await this.connection.ready.get(this.idKey(eventId));
    if (value === null) return undefined;
    const cut = value.lastIndexOf('\n');
    return { streamId: value.slice(0, cut), entry: value.slice(cut + 1) };
  }

  private streamKey(streamId: string): string {
    return `${this.prefix}ev:${streamId}`;
  }

  private idKey(eventId: string): string {
    return `${this.prefix}eid:${eventId}`;
  }
}
