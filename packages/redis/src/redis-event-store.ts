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

// Appends one event to its stream (a Redis stream), then drops the oldest events past the count
// and byte budgets, forgetting their ids so a Last-Event-ID naming one is refused like an unknown one.
// With a channel, publishes the notice in the same step (instances hear of events in stream order);
// with a claim (ARGV[11]), records it under KEYS[5] in the same step (a POST stream opened and primed).
const STORE = `
local entry = redis.call('XADD', KEYS[1], '*', 'e', ARGV[1], 'm', ARGV[2], 'b', ARGV[3])
local total = redis.call('INCRBY', KEYS[2], ARGV[3])
local count = redis.call('XLEN', KEYS[1])
while count > 0 and (count > tonumber(ARGV[4]) or total > tonumber(ARGV[5])) do
  local oldest = redis.call('XRANGE', KEYS[1], '-', '+', 'COUNT', 1)[1]
  redis.call('XDEL', KEYS[1], oldest[1])
  local fields = oldest[2]
  for i = 1, #fields, 2 do
    if fields[i] == 'b' then total = redis.call('DECRBY', KEYS[2], fields[i + 1])
    elseif fields[i] == 'e' then redis.call('DEL', ARGV[8] .. fields[i + 1]) end
  end
  count = count - 1
end
redis.call('SET', KEYS[3], ARGV[7] .. '\\n' .. entry, 'PX', ARGV[6])
redis.call('PEXPIRE', KEYS[1], ARGV[6])
redis.call('PEXPIRE', KEYS[2], ARGV[6])
redis.call('SADD', KEYS[4], ARGV[7])
redis.call('PEXPIRE', KEYS[4], ARGV[6])
if ARGV[9] ~= '' then redis.call('PUBLISH', ARGV[9], ARGV[10]) end
if ARGV[11] ~= '' then redis.call('SET', KEYS[5], ARGV[11], 'PX', ARGV[6]) end
return entry
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
    this.store = connection.script('armatureStoreEvent', 5, STORE);
  }

  storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    return this.append(streamId, message, '', () => '', '');
  }

  /** Waits for the connection within its bound: a relayed message is delayed by a reconnection, not lost. */
  async storeAndPublish(streamId: string, message: JSONRPCMessage, topic: BusTopic, notice: (eventId: string) => string): Promise<string> {
    await this.settled();
    return this.append(streamId, message, channelOf(this.channels, topic), notice, '');
  }

  private async append(
    streamId: string,
    message: JSONRPCMessage,
    channel: string,
    notice: (eventId: string) => string,
    claim: string,
  ): Promise<string> {
    const eventId = randomUUID();
    const json = JSON.stringify(message);
    const session = streamId.slice(0, streamId.indexOf('/') + 1);
    const { maxEventsPerStream, maxBytesPerStream, ttlMs } = this.limits;
    await this.store(
      this.streamKey(streamId),
      `${this.prefix}evb:${streamId}`,
      this.idKey(eventId),
      `${this.prefix}evs:${session}`,
      this.claimKey(streamId),
      eventId,
      json,
      Buffer.byteLength(json),
      maxEventsPerStream,
      maxBytesPerStream,
      ttlMs,
      streamId,
      `${this.prefix}eid:`,
      channel,
      notice(eventId),
      claim,
    );
    return eventId;
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

  /** With `priming`, one script stores it and records the claim (one round trip per POST stream). */
  async claimStream(streamId: string, claim: StreamClaim, priming?: JSONRPCMessage): Promise<string | undefined> {
    if (priming) return this.append(streamId, priming, '', () => '', JSON.stringify(claim));
    await this.connection.ready.set(this.claimKey(streamId), JSON.stringify(claim), 'PX', this.limits.ttlMs);
    return undefined;
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
