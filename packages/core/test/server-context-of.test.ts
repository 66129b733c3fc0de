import type { ServerContext } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { ClientlessSource, serverContextOf, sourceOf } from '../src/runtime/request-source.js';

// The SDK context a source gives (`sdkContextOf`, the SDK seams of the request engine) has the shape
// of the object literal it was first written as: the same own members in the same order, `signal`
// an own enumerable getter read only when asked, functions that work destructured, and a spread
// copy that carries every member but is not taken for the source's own context.

/** The own members of `value`: name, and whether each is a getter, a function or a value. */
function membersOf(value: object): string[] {
  return Object.entries(Object.getOwnPropertyDescriptors(value)).map(
    ([key, d]) => `${key}:${d.get ? 'getter' : typeof d.value === 'function' ? 'function' : 'value'}:${d.enumerable ? 'e' : ''}`,
  );
}

function sourceReadingSignal() {
  const source = new ClientlessSource(7, 'tools/call', { trace: 'x' }, undefined, 'no client');
  let reads = 0;
  const signal = source.signal;
  Object.defineProperty(source, 'signal', {
    get: () => {
      reads++;
      return signal;
    },
  });
  return { source, signal, reads: () => reads };
}

describe('serverContextOf', () => {
  it('has the members of the SDK context, in its order, signal a getter read when asked', () => {
    const { source, signal, reads } = sourceReadingSignal();
    const ctx = serverContextOf(source);
    expect(membersOf(ctx)).toEqual(['sessionId:value:e', 'mcpReq:value:e', 'http:value:e']);
    expect(membersOf(ctx.mcpReq)).toEqual([
      'id:value:e',
      'method:value:e',
      '_meta:value:e',
      'envelope:value:e',
      'inputResponses:value:e',
      'requestState:function:e',
      'signal:getter:e',
      'send:function:e',
      'notify:function:e',
      'log:function:e',
      'elicitInput:function:e',
      'requestSampling:function:e',
    ]);
    expect(ctx.mcpReq).toMatchObject({ id: 7, method: 'tools/call', _meta: { trace: 'x' } });
    expect(reads()).toBe(0);
    expect(ctx.mcpReq.signal).toBe(signal);
    expect(reads()).toBe(1);
    expect(JSON.stringify(ctx)).toBe('{"mcpReq":{"id":7,"method":"tools/call","_meta":{"trace":"x"},"signal":{}}}');
  });

  it('works destructured, and its source is found again (not for a spread copy)', async () => {
    const { source, signal } = sourceReadingSignal();
    const ctx = serverContextOf(source);
    const { requestState, send, notify } = ctx.mcpReq;
    expect(requestState()).toBeUndefined();
    await expect(send({ method: 'ping' } as never)).rejects.toThrow('no client');
    await expect(notify({ method: 'notifications/message', params: { level: 'info', data: 1 } } as never)).resolves.toBeUndefined();
    expect(sourceOf(ctx)).toBe(source);
    const copy: ServerContext = { ...ctx, mcpReq: { ...ctx.mcpReq } };
    expect(copy.mcpReq.signal).toBe(signal);
    expect(Object.keys(copy.mcpReq)).toEqual(Object.keys(ctx.mcpReq));
    expect(sourceOf(copy)).not.toBe(source);
    expect(sourceOf(copy).id).toBe(7);
  });
});
