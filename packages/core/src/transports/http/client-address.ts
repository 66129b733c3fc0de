import type { BlockList } from 'node:net';

/** node:net, loaded by the first HTTP request that needs it: a stdio server never loads it (nor node:http). */
const net = () => process.getBuiltinModule('node:net');

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
    return reported && net().isIP(reported) ? reported : peer;
  }
  // The chain as the last proxy saw it: every forwarded hop, then that proxy's own peer (the socket).
  const forwarded = (headers.get('x-forwarded-for') ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  const chain = peer === undefined ? forwarded : [...forwarded, peer];
  const reported = chain[chain.length - 1 - trustProxy];
  return reported && net().isIP(reported) ? reported : peer;
}

/** Loopback, private, link-local, shared (CGNAT) and unspecified ranges: where a reverse proxy can sit. */
let nonPublic: BlockList | undefined;

function nonPublicRanges(): BlockList {
  if (nonPublic) return nonPublic;
  nonPublic = new (net().BlockList)();
  for (const [range, prefix] of [
    ['0.0.0.0', 8],
    ['10.0.0.0', 8],
    ['100.64.0.0', 10],
    ['127.0.0.0', 8],
    ['169.254.0.0', 16],
    ['172.16.0.0', 12],
    ['192.168.0.0', 16],
  ] as const)
    nonPublic.addSubnet(range, prefix, 'ipv4');
  for (const [range, prefix] of [
    ['::', 128],
    ['::1', 128],
    ['fc00::', 7],
    ['fe80::', 10],
  ] as const)
    nonPublic.addSubnet(range, prefix, 'ipv6');
  return nonPublic;
}

/** Whether `address` (a socket's peer) is a public one: neither loopback nor private, link-local or shared. */
export function isPublicAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  const ip = mapped ?? address;
  const family = net().isIP(ip);
  if (family === 0) return false;
  return !nonPublicRanges().check(ip, family === 4 ? 'ipv4' : 'ipv6');
}
