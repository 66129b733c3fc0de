import { randomUUID } from 'node:crypto';
import type { BusTopic, SharedEventStore, StreamClaim } from '@armature/core';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import type { Connection } from './connection.js';
import { channelOf } from './redis-bus.js';

export interface RedisEventLimits {
  /** Most events one stream keeps; the oldest are dropped first. */
  readonly maxEventsPerStream: number;
  /** Most bytes of serialized messages one stream keeps; the oldest are dropped first. */
  readonly maxBytesPerStream: number;
  /** A stream nobody wrote to for this long is dropped, with its events. */
  readonly ttlMs: number;
}

// Appends events to their stream (a Redis stream) in one step, each under its opaque id (a key of
// ARGV[5] and the id, in the events' hash slot: with a fixed number of declared keys, the first
// argument is a key, which ioredis's cluster auto-pipelining groups commands by), then drops the
// oldest events past the count and byte budgets, forgetting their ids so a Last-Event-ID naming one
// is refused like an unknown one. The stream's keys live for the ttl after
// its last step. With a channel (ARGV[6]), publishes the notice in the same step (instances hear of
// events in stream order); with a claim (ARGV[8]), records it under KEYS[4] (a POST stream opened).
// ARGV[9..]: each event's id, message and byte length.
const STORE = `
local added = 0
for at = 9, #ARGV, 3 do
  local entry = redis.call('XADD', KEYS[1], '*', 'e', ARGV[at], 'm', ARGV[at + 1], 'b', ARGV[at + 2])
  redis.call('SET', ARGV[5] .. ARGV[at], ARGV[4] .. '\\n' .. entry, 'PX', ARGV[3])
  added = added + tonumber(ARGV[at + 2])
end
local total = redis.call('INCRBY', KEYS[2], added)
local count = redis.call('XLEN', KEYS[1])
while count > 0 and (count > tonumber(ARGV[1]) or total > tonumber(ARGV[2])) do
  local oldest = redis.call('XRANGE', KEYS[1], '-', '+', 'COUNT', 1)[1]
  redis.call('XDEL', KEYS[1], oldest[1])
  local fields = oldest[2]
  for i = 1, #fields, 2 do
    if fields[i] == 'b' then total = redis.call('DECRBY', KEYS[2], fields[i + 1])
    elseif fields[i] == 'e' then redis.call('DEL', ARGV[5] .. fields[i + 1]) end
  end
  count = count - 1
end
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
redis.call('SADD', KEYS[3], ARGV[4])
redis.call('PEXPIRE', KEYS[3], ARGV[3])
if ARGV[6] ~= '' then redis.call('PUBLISH', ARGV[6], ARGV[7]) end
if ARGV[8] ~= '' then redis.call('SET', KEYS[4], ARGV[8], 'PX', ARGV[3]) end
return added
`;

/**
 * The resumable events of every instance's 2025-11-25 sessions, on Redis: one Redis stream per SSE
 * stream (in order), each event under an opaque id that names neither session nor stream, each
 * stream within its count and byte budget. A client resuming with `Last-Event-ID` on any instance
 * gets every later event of that stream once, in order.
 */
export class RedisEventStore implements SharedEventStore {
  private readonly store: ReturnType<Connection['script']>;

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
    this.store = connection.script('armatureStoreEvents', 4, STORE);
  }

  async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    return (await this.append(streamId, [message], '', () => '', ''))[0] as string;
  }

  /** Waits for the connection within its bound: a relayed message is delayed by a reconnection, not lost. */
  async storeAndPublish(streamId: string, message: JSONRPCMessage, topic: BusTopic, notice: (eventId: string) => string): Promise<string> {
    await this.settled();
    return (await this.append(streamId, [message], channelOf(this.channels, topic), notice, ''))[0] as string;
  }

  /** One script, whatever the number of messages: one round trip per POST stream opened with its answer. */
  storeEvents(streamId: string, messages: readonly JSONRPCMessage[], claim?: StreamClaim): Promise<string[]> {
    return this.append(streamId, messages, '', () => '', claim ? JSON.stringify(claim) : '');
  }

  /** Fails at once, naming the server, while the connection is down. */
  assertReachable(): void {
    void this.connection.ready;
  }

  private async append(
    streamId: string,
    messages: readonly JSONRPCMessage[],
    channel: string,
    notice: (lastEventId: string) => string,
    claim: string,
  ): Promise<string[]> {
    const session = streamId.slice(0, streamId.indexOf('/') + 1);
    const { maxEventsPerStream, maxBytesPerStream, ttlMs } = this.limits;
    const eventIds: string[] = [];
    const events: (string | number)[] = [];
    for (const message of messages) {
      const eventId = randomUUID();
      const json = JSON.stringify(message);
      eventIds.push(eventId);
      events.push(eventId, json, Buffer.byteLength(json));
    }
    await this.store(
      this.streamKey(streamId),
      `${this.prefix}evb:${streamId}`,
      `${this.prefix}evs:${session}`,
      this.claimKey(streamId),
      maxEventsPerStream,
      maxBytesPerStream,
      ttlMs,
      streamId,
      `${this.prefix}eid:`,
      channel,
      notice(eventIds.at(-1) ?? ''),
      claim,
      ...events,
    );
    return eventIds;
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

  /** Drops every stream whose id starts with `streamPrefix` (a session that ended). */
  async purge(streamPrefix: string): Promise<void> {
    const redis = this.connection.ready;
    const set = `${this.prefix}evs:${streamPrefix}`;
    const streams = await redis.smembers(set);
    const keys = streams.flatMap((s) => [this.streamKey(s), `${this.prefix}evb:${s}`, this.claimKey(s)]);
    await redis.del(set, ...keys);
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
