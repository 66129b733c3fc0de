import { describe, expect, it, vi } from 'vitest';
import { createMcpApp, McpServer, type ServerEvent, Tool } from '../src/index.js';
import { clientAddress, isPublicAddress } from '../src/transports/http/client-address.js';
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

describe('trustProxy while requests come straight from public addresses', () => {
  it('tells public peers from loopback, private, link-local and shared ones, IPv4-mapped included', () => {
    for (const address of ['203.0.113.7', '8.8.8.8', '::ffff:203.0.113.7', '2001:4860:4860::8888'])
      expect([address, isPublicAddress(address)]).toEqual([address, true]);
    for (const address of [
      '127.0.0.1',
      '::1',
      '10.1.2.3',
      '172.20.0.5',
      '192.168.1.1',
      '169.254.1.1',
      '100.64.0.9',
      'fd00::1',
      'fe80::1',
      '::ffff:10.0.0.2',
      '::ffff:127.0.0.1',
      'nonsense',
    ])
      expect([address, isPublicAddress(address)]).toEqual([address, false]);
  });

  it('warns once, as an event and a line of the default log naming the risk and the fix; never for private peers or without trustProxy', async () => {
    const lines: string[] = [];
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
      lines.push(String(chunk));
      return true;
    });
    try {
      const post = async (handler: ReturnType<ReturnType<typeof createMcpApp>['httpHandler']>, remoteAddress: string) =>
        (
          await handler.fetch(
            new Request('http://127.0.0.1/mcp', { method: 'POST', headers: { ...JSON_HEADERS, host: '127.0.0.1' }, body: INITIALIZE }),
            { remoteAddress },
          )
        ).status;
      const app = createMcpApp(ProxiedServer);
      const events: ServerEvent[] = [];
      app.onEvent((event) => events.push(event));
      const behind = app.httpHandler({ trustProxy: 1 });
      expect(await post(behind, '10.0.0.2')).toBe(200);
      expect(await post(behind, '::ffff:127.0.0.1')).toBe(200);
      expect(events.filter((e) => e.event === 'misconfigured')).toEqual([]);
      for (const peer of ['203.0.113.7', '198.51.100.8']) expect(await post(behind, peer)).toBe(200);
      const warnings = events.filter((e) => e.event === 'misconfigured');
      expect(warnings).toEqual([{ event: 'misconfigured', option: 'trustProxy', message: expect.stringContaining('203.0.113.7') }]);
      expect(lines.filter((line) => line.includes('trustProxy'))).toEqual([
        expect.stringMatching(
          /^\[armature\] WARNING trustProxy is 1 but a request came straight from the public address 203\.0\.113\.7, not through a proxy: .*X-Forwarded-For.*Fix: let only the proxy reach the server/,
        ),
      ]);
      await behind.close();
      const direct = app.httpHandler();
      expect(await post(direct, '203.0.113.9')).toBe(200);
      expect(events.filter((e) => e.event === 'misconfigured')).toHaveLength(1);
      await direct.close();
      await app.close();
    } finally {
      spy.mockRestore();
    }
  });
});
