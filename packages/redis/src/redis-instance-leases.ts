import type { InstanceLeases } from '@armature/core';
import type { Connection } from './connection.js';

/** Instance leases on Redis: one key per instance, expiring unless renewed. */
export class RedisInstanceLeases implements InstanceLeases {
  constructor(
    private readonly connection: Connection,
    private readonly prefix: string,
  ) {}

  async renew(instance: string, ttlMs: number): Promise<void> {
    await this.connection.ready.set(this.key(instance), '1', 'PX', ttlMs);
  }

  async alive(instance: string): Promise<boolean> {
    return (await this.connection.ready.exists(this.key(instance))) === 1;
  }

  private key(instance: string): string {
    return `${this.prefix}instance:${instance}`;
  }
}
