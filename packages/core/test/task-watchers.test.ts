import { describe, expect, it } from 'vitest';
import { InMemoryTaskStore, type TaskRecord } from '../src/index.js';

function record(taskId: string): TaskRecord {
  const now = Date.now();
  return {
    taskId,
    owner: 'owner',
    tool: 'slow',
    status: 'working',
    createdAt: now,
    lastUpdatedAt: now,
    ttlMs: 60_000,
    pollIntervalMs: 1_000,
    leaseExpiresAt: now + 30_000,
  };
}

// The task watchers both built-in stores share (TaskWatchers), seen through the in-memory store.
describe('task watchers', () => {
  it('tells the watchers of the changed task only, and none once removed', async () => {
    const store = new InMemoryTaskStore();
    await store.create(record('a'));
    await store.create(record('b'));
    const seen: string[] = [];
    const stopA = store.watch('a', (changed) => seen.push(`a:${changed.statusMessage}`));
    store.watch('b', (changed) => seen.push(`b:${changed.statusMessage}`));
    await store.update('a', { statusMessage: 'one' });
    stopA();
    await store.update('a', { statusMessage: 'two' });
    expect(seen).toEqual(['a:one']);
  });

  it('keeps a later watcher of a task when an earlier one is removed a second time', async () => {
    const store = new InMemoryTaskStore();
    await store.create(record('a'));
    const seen: string[] = [];
    const stopFirst = store.watch('a', () => seen.push('first'));
    stopFirst();
    store.watch('a', (changed) => seen.push(`second:${changed.statusMessage}`));
    stopFirst();
    await store.update('a', { statusMessage: 'still told' });
    expect(seen).toEqual(['second:still told']);
  });
});
