import type { BusTopic, StateBus } from '@armature/core';
import type { Connection } from './connection.js';

/** The Redis channel of a bus topic. */
export function channelOf(prefix: string, topic: BusTopic): string {
  return `${prefix}bus:${topic}`;
}

/** The instances' messages on Redis pub/sub: one channel per topic, one subscriber connection. */
export class RedisBus implements StateBus {
  private readonly handlers = new Map<string, Set<(payload: string) => void>>();

  constructor(
    private readonly commands: Connection,
    private readonly subscriber: Connection,
    private readonly prefix: string,
    private readonly openTimeoutMs: number,
  ) {
    subscriber.client.on('message', (channel: string, payload: string) => {
      for (const handler of this.handlers.get(channel) ?? []) handler(payload);
    });
  }

  /**
   * Waits, within the open timeout, for both connections: a message is delayed by a
   * reconnection, not lost, and this instance's own subscriber hears it too.
   */
  async publish(topic: BusTopic, payload: string): Promise<void> {
    await this.settled();
    await this.commands.ready.publish(this.channel(topic), payload);
  }

  /** Both connections (re)connected, or the failure naming Redis once the open timeout passed. */
  async settled(): Promise<void> {
    await Promise.all([this.commands.settled(this.openTimeoutMs), this.subscriber.settled(this.openTimeoutMs)]);
  }

  async subscribe(topic: BusTopic, handler: (payload: string) => void): Promise<() => Promise<void>> {
    await this.subscriber.open(this.openTimeoutMs);
    const channel = this.channel(topic);
    let set = this.handlers.get(channel);
    if (!set) {
      set = new Set();
      this.handlers.set(channel, set);
      // ioredis subscribes again by itself after a reconnection.
      await this.subscriber.ready.subscribe(channel);
    }
    set.add(handler);
    return async () => {
      set.delete(handler);
      if (set.size > 0 || this.handlers.get(channel) !== set) return;
      this.handlers.delete(channel);
      if (this.subscriber.client.status === 'ready') await this.subscriber.client.unsubscribe(channel);
    };
  }

  private channel(topic: BusTopic): string {
    return channelOf(this.prefix, topic);
  }
}
