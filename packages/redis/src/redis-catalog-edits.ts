import type { CatalogEdit, CatalogEdits } from '@armature/core';
import type { Connection } from './connection.js';

const CATALOGS: readonly CatalogEdit['catalog'][] = ['tools', 'prompts', 'resources', 'resourceTemplates'];
const OPS: readonly CatalogEdit['op'][] = ['enable', 'disable', 'remove'];

/** The run-time catalogue edits of every instance on Redis: one hash field per entry, holding its last edit. */
export class RedisCatalogEdits implements CatalogEdits {
  constructor(
    private readonly connection: Connection,
    private readonly prefix: string,
    /** How long an edit waits for Redis to (re)connect: nobody waits on it, so it is delayed, not lost. */
    private readonly settleMs: number,
  ) {}

  async record(edit: CatalogEdit): Promise<void> {
    const redis = await this.connection.settled(this.settleMs);
    await redis.hset(this.key, `${edit.catalog}\u0000${edit.key}`, edit.op);
  }

  async all(): Promise<CatalogEdit[]> {
    const fields = await this.connection.ready.hgetall(this.key);
    const edits: CatalogEdit[] = [];
    for (const [field, op] of Object.entries(fields)) {
      const at = field.indexOf('\u0000');
      const catalog = field.slice(0, at) as CatalogEdit['catalog'];
      // Written by this class only; anything else in the hash is left alone.
      if (at === -1 || !CATALOGS.includes(catalog) || !OPS.includes(op as CatalogEdit['op'])) continue;
      edits.push({ catalog, key: field.slice(at + 1), op: op as CatalogEdit['op'] });
    }
    return edits;
  }

  private get key(): string {
    return `${this.prefix}catalog`;
  }
}
