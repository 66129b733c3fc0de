import { Context } from '@armature/core';
import { describe, expect, it } from 'vitest';
import { createTestContext } from '../src/index.js';

describe('createTestContext', () => {
  it('is a Context that records logs and progress, with the chosen meta and request id', async () => {
    const ctx = createTestContext({ meta: { tenant: 'acme', progressToken: 7 }, requestId: 42 });
    expect(ctx).toBeInstanceOf(Context);
    await ctx.log.info('started', { step: 1 });
    await ctx.log.error('oops');
    await ctx.progress(1, 2, 'half');
    await ctx.progress(2);
    expect(ctx.logs).toEqual([
      { level: 'info', message: 'started', data: { step: 1 } },
      { level: 'error', message: 'oops' },
    ]);
    expect(ctx.progressUpdates).toEqual([{ progress: 1, total: 2, message: 'half' }, { progress: 2 }]);
    expect(ctx.meta).toEqual({ tenant: 'acme', progressToken: 7 });
    expect(Object.isFrozen(ctx.meta)).toBe(true);
    expect(ctx.requestId).toBe(42);
  });

  it('defaults: empty meta, a request id, every level recorded', async () => {
    const ctx = createTestContext();
    await ctx.log.debug('d');
    await ctx.log.emergency('e');
    expect(ctx.meta).toEqual({});
    expect(ctx.requestId).toBe('test-request');
    expect(ctx.logs.map((l) => l.level)).toEqual(['debug', 'emergency']);
    expect(ctx.signal.aborted).toBe(false);
  });

  it('honours the log level like logging/setLevel', async () => {
    const ctx = createTestContext({ logLevel: 'warning' });
    for (const level of ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const)
      await ctx.log[level](level);
    expect(ctx.logs.map((l) => l.message)).toEqual(['warning', 'error', 'critical', 'alert', 'emergency']);
  });

  it('lets the test abort the signal, after which progress is no longer recorded', async () => {
    const ctx = createTestContext();
    const seen: unknown[] = [];
    ctx.signal.addEventListener('abort', () => seen.push(ctx.signal.reason));
    await ctx.progress(1);
    ctx.abort('user pressed stop');
    await ctx.progress(2);
    expect(seen).toEqual(['user pressed stop']);
    expect(ctx.progressUpdates).toEqual([{ progress: 1 }]);
    expect(() => ctx.signal.throwIfAborted()).toThrow();
  });

  it('follows an outer signal', () => {
    const outer = new AbortController();
    const ctx = createTestContext({ signal: outer.signal });
    outer.abort('timeout');
    expect(ctx.signal.aborted).toBe(true);
    expect(ctx.signal.reason).toBe('timeout');
    const already = createTestContext({ signal: AbortSignal.abort('early') });
    expect(already.signal.reason).toBe('early');
  });

  it('drives a tool method called as a plain method', async () => {
    class Indexer {
      async index(files: string[], ctx: Context) {
        for (const [i, file] of files.entries()) {
          ctx.signal.throwIfAborted();
          await ctx.progress(i + 1, files.length, file);
          if (i === 0 && ctx.meta.stopAfterFirst) (ctx as ReturnType<typeof createTestContext>).abort();
        }
        return 'done';
      }
    }
    const ctx = createTestContext({ meta: { stopAfterFirst: true } });
    await expect(new Indexer().index(['a', 'b'], ctx)).rejects.toThrow('The test cancelled the request');
    expect(ctx.progressUpdates).toEqual([{ progress: 1, total: 2, message: 'a' }]);
  });
});
