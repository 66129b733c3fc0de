import { isIP } from 'node:net';

/**
 * Where the client's address comes from behind reverse proxies (`trustProxy`): a number of proxies
 * in front of the server, each appending the address it received from to `X-Forwarded-For`; or
 * the name of a header the (only) proxy sets to the client's address, such as `x-real-ip`.
 */
export type TrustProxy = number | string;

/**
 * The address per-client caps count a request against: the socket's peer, or, with `trustProxy`,
 * the address the trusted proxies report. Only what the trusted hops wrote is believed: with `n`
 * proxies, the `n`-th address from the right of the socket's peer, so entries a client wrote
 * itself at the left of `X-Forwarded-For` are never taken. Undefined when the header is missing or
 * holds no IP address where one is expected (the request is then counted by its socket's peer).
 */
export function clientAddress(
  headers: { get(name: string): string | null },
  peer: string | undefined,
  trustProxy: TrustProxy | undefined,
): string | undefined {
  if (trustProxy === undefined || trustProxy === 0) return peer;
  if (typeof trustProxy === 'string') {
    const reported = headers.get(trustProxy)?.trim();
    return reported && isIP(reported) ? reported : peer;
  }
  // The chain as the last proxy saw it: every forwarded hop, then that proxy's own peer (the socket).
  const forwarded = (headers.get('x-forwarded-for') ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  const chain = peer === undefined ? forwarded : [...forwarded, peer];
  const reported = chain[chain.length - 1 - trustProxy];
  return reported && isIP(reported) ? reported : peer;
}
