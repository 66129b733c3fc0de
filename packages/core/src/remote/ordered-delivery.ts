import type { Transport } from '@modelcontextprotocol/client';

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
