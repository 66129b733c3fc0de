import { describe, expect, it } from 'vitest';
import { useCluster } from './support/cluster.js';

const cluster = useCluster(['a', 'b', 'c'], { env: { AUTH: '1' } });

function post(token: string, body: unknown, session?: string): Promise<Response> {
  return fetch(cluster.proxy.url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(session ? { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' } : {}),
    },
    body: JSON.stringify(body),
  });
}

describe('a session belongs to whoever opened it, on every instance', () => {
  it("answers another user presenting alice's session id as an unknown session, and serves alice everywhere", async () => {
    const init = await post('alice', {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    expect(init.status).toBe(200);
    const session = init.headers.get('mcp-session-id') as string;
    await init.text();
    expect((await post('alice', { jsonrpc: '2.0', method: 'notifications/initialized' }, session)).status).toBe(202);

    const before = cluster.proxy.routed.length;
    for (let i = 0; i < 3; i++) {
      const refused = await post('bob', { jsonrpc: '2.0', id: 10 + i, method: 'tools/list' }, session);
      expect(refused.status).toBe(404);
      expect(await refused.json()).toEqual({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null });
    }
    for (let i = 0; i < 3; i++) {
      const served = await post(
        'alice',
        { jsonrpc: '2.0', id: 20 + i, method: 'tools/call', params: { name: 'whoami', arguments: {} } },
        session,
      );
      expect(served.status).toBe(200);
      expect(await served.text()).toMatch(/"result":\{"content":\[\{"type":"text","text":"[abc]"\}\]/);
    }
    // Bob's three tries and Alice's three calls each went to all three cluster.instances.
    const routed = cluster.proxy.routed.slice(before).map((r) => r.instance);
    expect(new Set(routed.slice(0, 3))).toEqual(new Set(['a', 'b', 'c']));
    expect(new Set(routed.slice(3, 6))).toEqual(new Set(['a', 'b', 'c']));
  });
});
