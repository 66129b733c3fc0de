import { describe, expect, it } from 'vitest';
import { createMcpApp, McpServer, Tool } from '../src/index.js';
import { clientAddress } from '../src/transports/client-address.js';
import { INITIALIZE, JSON_HEADERS, rawHttp } from './support/raw-http.js';

const headers = (forwarded?: string, realIp?: string) =>
  new Headers({ ...(forwarded ? { 'x-forwarded-for': forwarded } : {}), ...(realIp ? { 'x-real-ip': realIp } : {}) });

describe('clientAddress', () => {
  it('is the socket peer unless proxies are trusted', () => {
    expect(clientAddress(headers('203.0.113.9'), '10.0.0.2', undefined)).toBe('10.0.0.2');
    expect(clientAddress(headers('203.0.113.9'), '10.0.0.2', 0)).toBe('10.0.0.2');
  });

  it('takes the address as many hops back as there are trusted proxies, never what the client wrote itself', () => {
    // One proxy (10.0.0.2) appended the address it received from.
    expect(clientAddress(headers('203.0.113.9'), '10.0.0.2', 1)).toBe('203.0.113.9');
    // The client forged an entry at the left: one trusted proxy still reports the real peer.
    expect(clientAddress(headers('198.51.100.1, 203.0.113.9'), '10.0.0.2', 1)).toBe('203.0.113.9');
    // Two proxies: the CDN appended the client, the load balancer the CDN.
    expect(clientAddress(headers('198.51.100.1, 203.0.113.9, 10.0.0.7'), '10.0.0.2', 2)).toBe('203.0.113.9');
  });

  it('falls back to the socket peer when the trusted header is missing or is not an address', () => {
    expect(clientAddress(headers(), '10.0.0.2', 1)).toBe('10.0.0.2');
    expect(clientAddress(headers('not-an-ip'), '10.0.0.2', 1)).toBe('10.0.0.2');
    expect(clientAddress(headers(undefined, '2001:db8::1'), '10.0.0.2', 'x-real-ip')).toBe('2001:db8::1');
    expect(clientAddress(headers(undefined, 'x'), '10.0.0.2', 'x-real-ip')).toBe('10.0.0.2');
  });
});

@McpServer({ name: 'proxied', version: '1.0.0' })
class ProxiedServer {
  @Tool({ description: 'ping' })
  ping() {
    return 'pong';
  }
}

/** The status of an initialize sent as if through a proxy that reports `forwarded`. */
async function open(url: string, forwarded: string): Promise<number> {
  return (await rawHttp(url, { headers: { ...JSON_HEADERS, 'x-forwarded-for': forwarded }, body: INITIALIZE })).status;
}

describe('per-client session caps behind a proxy', () => {
  it('count each client the trusted proxy reports, not the proxy', async () => {
    for (const trustProxy of [undefined, 1] as const) {
      const app = createMcpApp(ProxiedServer);
      const { url, close } = await app.listenHttp({ port: 0, maxSessionsPerClient: 1, ...(trustProxy ? { trustProxy } : {}) });
      try {
        const statuses = [await open(url, '203.0.113.9'), await open(url, '203.0.113.10'), await open(url, '203.0.113.9')];
        // Without trustProxy every request comes from the one peer (the proxy): one session for all.
        expect({ trustProxy, statuses }).toEqual({ trustProxy, statuses: trustProxy ? [200, 200, 429] : [200, 429, 429] });
      } finally {
        await close();
        await app.close();
      }
    }
  });
});
