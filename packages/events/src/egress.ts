import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/**
 * Which addresses webhook deliveries may reach. By default only globally routable unicast
 * addresses (loopback, private, link-local, carrier-grade NAT, multicast, reserved, 6to4/Teredo
 * and the like are refused); `allow` lists addresses or CIDR ranges the app reaches on purpose,
 * such as a receiver on 127.0.0.1 in tests. Always checked on the resolved address, at connect time.
 */
export class EgressPolicy {
  private readonly allowed: readonly [Address, number][];

  constructor(allow: readonly string[] = []) {
    this.allowed = allow.map((entry) => EgressPolicy.parseEntry(entry) as [Address, number]);
  }

  /** The entry as a range, or undefined when it is neither an address nor a CIDR range. */
  static parseEntry(entry: string): [Address, number] | undefined {
    if (ipaddr.isValidCIDR(entry)) return ipaddr.parseCIDR(entry);
    if (ipaddr.isValid(entry)) {
      const address = ipaddr.process(entry);
      return [address, address.kind() === 'ipv4' ? 32 : 128];
    }
    return undefined;
  }

  /** Whether an app's allow list names this address (an IPv4-mapped IPv6 address counts as its IPv4). */
  listed(address: string): boolean {
    const parsed = ipaddr.process(address);
    return this.allowed.some(([range, bits]) => range.kind() === parsed.kind() && parsed.match(range, bits));
  }

  /** Whether a delivery may connect to this resolved address (with `listedOnly`, only to one the app allowed: plain http). */
  permits(address: string, listedOnly = false): boolean {
    if (!ipaddr.isValid(address)) return false;
    if (listedOnly) return this.listed(address);
    return ipaddr.process(address).range() === 'unicast' || this.listed(address);
  }

  /**
   * A `lookup` for `http.request` that resolves the host, refuses the connection unless every
   * address it resolved to is permitted, and hands the socket exactly the addresses it checked: the
   * check and the connect see the same answer, so DNS rebinding cannot slip a private address in.
   */
  lookup(listedOnly: boolean): LookupFunction {
    return (hostname, options, callback) => {
      dnsLookup(hostname, { all: true, family: options.family, hints: options.hints }, (error, addresses: LookupAddress[]) => {
        if (error) return callback(error, '', 0);
        const refused = addresses.find((entry) => !this.permits(entry.address, listedOnly));
        if (refused || addresses.length === 0) {
          return callback(new RefusedTargetError(refused?.address ?? hostname), '', 0);
        }
        if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
        const first = addresses[0] as LookupAddress;
        callback(null, first.address, first.family);
      });
    };
  }

  /** The addresses `hostname` resolves to now (itself when it is an IP literal), for the subscribe-time check. */
  static resolve(hostname: string): Promise<string[]> {
    if (isIP(hostname) !== 0) return Promise.resolve([hostname]);
    return new Promise((resolve, reject) => {
      dnsLookup(hostname, { all: true }, (error, addresses) => (error ? reject(error) : resolve(addresses.map((a) => a.address))));
    });
  }
}

/** A delivery target refused by the egress policy. */
export class RefusedTargetError extends Error {
  constructor(readonly address: string) {
    super(`refused target ${address}`);
    this.name = 'RefusedTargetError';
  }
}

/** The host of a URL as `dns.lookup` and `net.isIP` take it (IPv6 literals without their brackets). */
export function bareHost(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}
