import { Context, Field, ToolError } from '@armature/core';
import { IsIn } from 'class-validator';
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

  it('records ctx.continueAsTask() and lets the handler go on, as one call', async () => {
    const ctx = createTestContext();
    expect(ctx.continuedAsTask).toBe(false);
    await ctx.continueAsTask();
    expect(ctx.continuedAsTask).toBe(true);
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

class AccountChoice {
  @Field('Account to charge')
  @IsIn(['personal', 'business'])
  account!: string;
}

describe('createTestContext: asking the client', () => {
  it('answers ctx.elicit in order, validating accepted content into the DTO', async () => {
    const ctx = createTestContext({ elicit: [{ action: 'accept', content: { account: 'business' } }, { action: 'decline' }] });
    const first = await ctx.elicit('Which account?', AccountChoice);
    expect(first).toEqual({ action: 'accept', content: { account: 'business' } });
    expect(first.action === 'accept' && first.content).toBeInstanceOf(AccountChoice);
    expect(await ctx.elicit('Again?', AccountChoice)).toEqual({ action: 'decline' });
    expect(ctx.elicitations).toEqual([
      { message: 'Which account?', dto: AccountChoice },
      { message: 'Again?', dto: AccountChoice },
    ]);
    await expect(ctx.elicit('A third?', AccountChoice)).rejects.toThrow(
      'ctx.elicit("A third?") was question 3, but the test context has 2 answer(s).',
    );
  });

  it('turns an invalid accepted answer into the ToolError production raises', async () => {
    const ctx = createTestContext({ elicit: () => ({ action: 'accept', content: { account: 'savings' } }) });
    const error = await ctx.elicit('Which account?', AccountChoice).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolError);
    expect((error as Error).message).toBe(
      'The answer to "Which account?" is invalid:\naccount: must be one of the following values: personal, business',
    );
  });

  it('passes raw schemas through and answers URL elicitations', async () => {
    const schema = { type: 'object' as const, properties: { ok: { type: 'boolean' as const } } };
    const ctx = createTestContext({ elicit: [{ action: 'accept', content: { ok: true } }, { action: 'cancel' }] });
    expect(await ctx.elicit('Sure?', schema)).toEqual({ action: 'accept', content: { ok: true } });
    expect(await ctx.elicitUrl('Sign in', 'https://example.com/consent')).toEqual({ action: 'cancel' });
    expect(ctx.elicitations[1]).toEqual({ message: 'Sign in', url: 'https://example.com/consent' });
  });

  it('records sampling requests and replies with the scripted model', async () => {
    const ctx = createTestContext({ sample: (params) => `echo ${params.messages.length}` });
    const reply = await ctx.sample('Summarise this', { maxTokens: 50 });
    expect(reply).toEqual({ role: 'assistant', content: { type: 'text', text: 'echo 1' }, model: 'test-model' });
    expect(ctx.samplingRequests).toEqual([
      { messages: [{ role: 'user', content: { type: 'text', text: 'Summarise this' } }], maxTokens: 50 },
    ]);
  });

  it('returns the given roots and principal, and says how to script what is missing', async () => {
    const principal = { token: 't', clientId: 'c', scopes: ['read'] };
    const ctx = createTestContext({ roots: [{ uri: 'file:///work', name: 'work' }], principal });
    expect(await ctx.roots()).toEqual([{ uri: 'file:///work', name: 'work' }]);
    expect(ctx.principal).toBe(principal);
    const bare = createTestContext();
    expect(bare.principal).toBeUndefined();
    await expect(bare.roots()).rejects.toThrow('ctx.roots was called, but the test context has none.');
    await expect(bare.sample('x')).rejects.toThrow('ctx.sample was called, but the test context has no model reply.');
    await expect(bare.elicit('Name?', AccountChoice)).rejects.toThrow(
      'ctx.elicit("Name?") was question 1, but the test context has 0 answer(s).',
    );
  });
});
