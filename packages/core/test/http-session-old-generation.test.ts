import { Agent, request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { createMcpApp } from '../src/index.js';
import { collectingServer, oldGenerationGain } from './support/old-generation.js';

// What a 2025-11-25 session call over node:http leaves behind must stay out of the old generation,
// also after a mark-compact has moved the session's own structures there while calls were in
// flight. Three paths put each call's objects there until the next mark-compact:
// - the `extra` a request was handed on with was an object literal with a getter: V8 gives each
//   such getter an accessor pair of its own in the old generation, which kept the request, its
//   response and its stream alive through the scavenges (about 3.8 KB a call, promoted);
// - the session transport's `Set` of ids in flight and `Map` of answer streams: once their
//   tables are old, every table they rebuild is allocated old, each linked to the next.
// This counts every byte the old generation gains outside mark-compacts, in this process, where
// the client runs too (a plain node:http client): 140-190 bytes a call, 480 with the Set and the
// Map, 3,700 with the literal's getter.
describe('the old generation of an HTTP session under load', () => {
  const { server, collectNext } = collectingServer('session-old-generation');

  it('gains little per call after a mark-compact in mid-load', async () => {
    const listener = await createMcpApp(server).listenHttp({ port: 0 });
    const connections = 16;
    const agent = new Agent({ keepAlive: true, maxSockets: connections });
    let sessionId = '';
    const post = (body: string) =>
      new Promise<{ status: number; session: string; text: string }>((resolve, reject) => {
        const headers: Record<string, string | number> = {
          accept: 'application/json, text/event-stream',
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        };
        if (sessionId) {
          headers['mcp-session-id'] = sessionId;
          headers['mcp-protocol-version'] = '2025-11-25';
        }
        const req = request(listener.url, { method: 'POST', agent, headers }, (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (text += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, session: String(res.headers['mcp-session-id'] ?? ''), text }));
        });
        req.on('error', reject);
        req.end(body);
      });
    let next = 0;
    let answered = 0;
    const call = async () => {
      const id = ++next;
      const { text } = await post(`{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"add","arguments":{}}}`);
      if (text.includes(`"id":${id}`) && text.includes('"text":"ok"')) answered++;
    };
    /** `count` calls, `connections` at a time. */
    const load = async (count: number) => {
      let started = 0;
      const worker = async () => {
        while (started < count) {
          started++;
          await call();
        }
      };
      await Promise.all(Array.from({ length: connections }, worker));
    };
    try {
      const init = await post(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 0,
          method: 'initialize',
          params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
        }),
      );
      expect(init.status).toBe(200);
      sessionId = init.session;
      expect((await post('{"jsonrpc":"2.0","method":"notifications/initialized"}')).status).toBe(202);
      await load(1_000);
      collectNext();
      await load(connections);
      const calls = 4_000;
      answered = 0;
      const { gained, scavenges } = await oldGenerationGain(() => load(calls));
      expect(answered).toBe(calls);
      expect(scavenges).toBeGreaterThan(0);
      expect(gained / calls).toBeLessThan(300);
    } finally {
      agent.destroy();
      await listener.close();
    }
  }, 60_000);
});
