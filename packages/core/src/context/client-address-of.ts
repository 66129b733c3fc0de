/**
 * The client address HTTP admission found for a request (the socket's peer, or what the trusted
 * proxies of `trustProxy` reported), kept with the web `Request` a handler's `ctx.http.req` is:
 * rate limits count unauthenticated callers by it. Weakly held: it goes with the request.
 */
const addresses = new WeakMap<object, string>();

/** Records `address` as the client address of `request`; returns the request. */
export function rememberClientAddress<R extends object>(request: R, address: string | undefined): R {
  if (address !== undefined) addresses.set(request, address);
  return request;
}

/** The client address recorded for `request`, if any. */
export function clientAddressOf(request: object | undefined): string | undefined {
  return request === undefined ? undefined : addresses.get(request);
}
