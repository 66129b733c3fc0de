// The one module that sets the callbacks of the SDK's objects (`onmessage` and `onclose` of a
// transport or server, `connect` of an McpServer): `.ci/lint-seams.mjs` fails on such an assignment
// anywhere else. Each keeps what was set before (the SDK's own handler included) and runs it too;
// the engine's front is put before the SDK's message handler only when the SDK has set one, and
// otherwise the connection is left to the SDK, which then serves every message.
import type { JSONRPCMessage, McpServer, MessageExtraInfo, Transport } from '@modelcontextprotocol/server';

/** Something the SDK tells of its end through `onclose` (a transport, a Server, a Client). */
interface Closable {
  onclose?: (() => void) | undefined;
}

/** Runs `listener` when `target` closes, after what listened before (`first`: before it). */
export function onClosed(target: Closable, listener: () => void, first = false): void {
  const previous = target.onclose;
  target.onclose = () => {
    if (first) listener();
    try {
      previous?.();
    } finally {
      if (!first) listener();
    }
  };
}

/**
 * Offers each message `transport` receives to `offer` first: what it declines (returns false for)
 * goes on to the SDK's handler. False, and nothing changed, when the SDK has set no handler (not
 * connected yet, or an SDK that receives another way): the SDK then keeps every message.
 */
export function frontMessages(
  transport: Transport,
  offer: (message: JSONRPCMessage, extra: MessageExtraInfo | undefined) => boolean,
): boolean {
  const toSdk = transport.onmessage;
  if (typeof toSdk !== 'function') return false;
  transport.onmessage = (message, extra) => {
    if (!offer(message, extra)) toSdk(message, extra);
  };
  return true;
}

/**
 * Hands what `inner` (an SDK transport Armature's own transport frames HTTP with) receives, and
 * its close and errors, to `outer`'s handlers as they are when it happens (the SDK server sets
 * them on `outer` when it connects). What was set on `inner` before runs first; `closing` runs when
 * `inner` closes, before `outer` is told.
 */
export function forwardCallbacks(inner: Transport, outer: Transport, closing: () => void): void {
  const { onmessage, onclose, onerror } = inner;
  inner.onmessage = (message, extra) => {
    onmessage?.(message, extra);
    outer.onmessage?.(message, extra);
  };
  inner.onclose = () => {
    onclose?.();
    closing();
    outer.onclose?.();
  };
  inner.onerror = (error) => {
    onerror?.(error);
    outer.onerror?.(error);
  };
}

/** Runs `then` with each transport `mcp` connects to, once the SDK connected it. */
export function afterConnect(mcp: McpServer, then: (transport: Transport) => void): void {
  const connect = mcp.connect.bind(mcp);
  mcp.connect = async (transport) => {
    await connect(transport);
    then(transport);
  };
}

/**
 * Makes `transport` hand each response to the client one microtask late. The SDK's client runs a
 * notification's handler a microtask after reading it, but settles a response at once: the last
 * progress notifications and log lines of a call, read in the same chunk as its response, would
 * reach their handlers after the call ended, and be lost. Delayed this way, a response is settled
 * after the notifications read before it. Uses the transport's public `onmessage` only.
 */
export function withOrderedDelivery<T extends Transport>(transport: T): T {
  let handler: Transport['onmessage'];
  Object.defineProperty(transport, 'onmessage', {
    configurable: true,
    get: () => handler,
    set(next: Transport['onmessage']) {
      handler =
        next &&
        ((message, extra) => {
          if ('method' in message) next(message, extra);
          else queueMicrotask(() => next(message, extra));
        });
    },
  });
  return transport;
}
