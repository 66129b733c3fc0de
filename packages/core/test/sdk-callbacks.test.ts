import { InMemoryTransport, type JSONRPCMessage } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { forwardCallbacks, frontMessages, onClosed } from '../src/seams/sdk-callbacks.js';

// The seam that sets the SDK's callbacks: what was set before still runs, and the engine is put in
// front of the SDK's message handler only when the SDK has set one.

const PING = { jsonrpc: '2.0', id: 1, method: 'ping' } as JSONRPCMessage;

describe('frontMessages', () => {
  it('leaves a transport the SDK set no handler on to the SDK, changing nothing', () => {
    const [, transport] = InMemoryTransport.createLinkedPair();
    expect(frontMessages(transport, () => true)).toBe(false);
    expect(transport.onmessage).toBeUndefined();
  });

  it('offers each message first, and hands the SDK what the offer declines, with its extra', () => {
    const [, transport] = InMemoryTransport.createLinkedPair();
    const sdk: unknown[] = [];
    transport.onmessage = (message, extra) => sdk.push([message, extra]);
    const offered: unknown[] = [];
    expect(frontMessages(transport, (message) => offered.push(message) > 1)).toBe(true);
    transport.onmessage?.(PING, { authInfo: undefined });
    transport.onmessage?.(PING);
    expect(offered).toEqual([PING, PING]);
    expect(sdk).toEqual([[PING, { authInfo: undefined }]]);
  });
});

describe('onClosed', () => {
  it('runs the listener after what listened before, or before it when asked, and both always run', () => {
    const heard: string[] = [];
    const target: { onclose?: () => void } = { onclose: () => heard.push('sdk') };
    onClosed(target, () => heard.push('after'));
    onClosed(target, () => heard.push('first'), true);
    target.onclose?.();
    expect(heard).toEqual(['first', 'sdk', 'after']);
  });

  it('still runs the listener when the earlier handler throws', () => {
    const heard: string[] = [];
    const target: { onclose?: () => void } = {
      onclose: () => {
        throw new Error('boom');
      },
    };
    onClosed(target, () => heard.push('after'));
    expect(() => target.onclose?.()).toThrow('boom');
    expect(heard).toEqual(['after']);
  });
});

describe('forwardCallbacks', () => {
  it("hands the inner transport's messages, close and errors to the outer one's handlers as set when they happen, after what the inner had", () => {
    const [, inner] = InMemoryTransport.createLinkedPair();
    const heard: unknown[] = [];
    inner.onclose = () => heard.push('inner closed');
    const outer: { onmessage?: (m: unknown) => void; onclose?: () => void; onerror?: (e: Error) => void } = {};
    forwardCallbacks(inner, outer as never, () => heard.push('closing'));
    // Set after forwarding, as the SDK server sets them when it connects.
    outer.onmessage = (message) => heard.push(message);
    outer.onclose = () => heard.push('outer closed');
    outer.onerror = (error) => heard.push(error.message);
    inner.onmessage?.(PING);
    inner.onerror?.(new Error('bad'));
    inner.onclose?.();
    expect(heard).toEqual([PING, 'bad', 'inner closed', 'closing', 'outer closed']);
  });
});
