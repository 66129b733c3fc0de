import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { createMcpApp } from '../src/index.js';
import { collectingServer, oldGenerationGain } from './support/old-generation.js';

// What a 2026-07-28 call over node:http leaves behind must stay out of the old generation, also
// after a mark-compact has moved what was in flight there. Two paths put each call's objects there
// until the next mark-compact:
// - the engine's front kept the calls running in a `Map` keyed by their exchange: once its table
//   is old, every table it rebuilds is allocated old, each linked to the next, with every exchange
//   (its request, response and params) they held;
// - a call that sends a notification streams it on its response, whose notification stream was an
//   object literal with a getter: V8 gives each such getter an accessor pair of its own in the old
//   generation, which kept the response alive through the scavenges.
// This counts every byte the old generation gains outside mark-compacts, in this process (the
// client runs in a worker thread, its own heap): about 600 bytes a call for `add`, 740 with the
// Map; 1,060-1,080 for a call that sends a notification, 3,700-3,800 with the literal's getter.
// (Over 20,000 calls: part of what is counted comes once, after the mark-compact, and over fewer
// calls it hides the Map's share: 1,000-1,090 against 1,170-1,210 over 4,000.)

/**
 * The client, a plain node:http client in a worker thread: its own V8 isolate and heap, so that
 * only the server's objects are counted. Each message asks for that many calls, answered with how
 * many came back with their id and the expected answer.
 */
const CLIENT = `
const { Agent, request } = require('node:http');
const { parentPort, workerData } = require('node:worker_threads');
const { url, tool, meta, connections } = workerData;
const answer = new RegExp(workerData.answer, 's');
const agent = new Agent({ keepAlive: true, maxSockets: connections });
const headers = {
  accept: 'application/json, text/event-stream',
  'content-type': 'application/json',
  'mcp-protocol-version': '2026-07-28',
  'mcp-method': 'tools/call',
  'mcp-name': tool,
};
let next = 0;
const post = (body) =>
  new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', agent, headers: { ...headers, 'content-length': Buffer.byteLength(body) } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve(text));
    });
    req.on('error', reject);
    req.end(body);
  });
parentPort.on('message', async (count) => {
  let started = 0;
  let answered = 0;
  const worker = async () => {
    while (started < count) {
      started++;
      const id = ++next;
      const text = await post(JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: tool, arguments: {}, _meta: meta } }));
      if (text.includes('"id":' + id) && answer.test(text)) answered++;
    }
  };
  await Promise.all(Array.from({ length: connections }, worker));
  parentPort.postMessage(answered);
});
`;

describe('the old generation of 2026-07-28 HTTP calls under load', () => {
  const { server, collectNext } = collectingServer('modern-old-generation');
  const ENVELOPE = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': {},
  };

  /** Per call, what the old generation gains over 20,000 calls of `tool` (with `meta` beside the envelope). */
  async function gainPerCall(tool: string, meta: Record<string, unknown>, answer: RegExp) {
    const listener = await createMcpApp(server).listenHttp({ port: 0 });
    const client = new Worker(CLIENT, {
      eval: true,
      workerData: { url: listener.url, tool, meta: { ...ENVELOPE, ...meta }, answer: answer.source, connections: 16 },
    });
    const replies: ((answered: number) => void)[] = [];
    client.on('message', (answered: number) => replies.shift()?.(answered));
    /** `count` calls, 16 at a time, by the client: how many were answered as `answer` expects. */
    const load = (count: number) =>
      new Promise<number>((resolve) => {
        replies.push(resolve);
        client.postMessage(count);
      });
    try {
      expect(await load(1_000)).toBe(1_000);
      collectNext();
      expect(await load(16)).toBe(16);
      const calls = 20_000;
      let answered = 0;
      const { gained, scavenges } = await oldGenerationGain(async () => {
        answered = await load(calls);
      });
      expect(answered).toBe(calls);
      expect(scavenges).toBeGreaterThan(0);
      return gained / calls;
    } finally {
      await client.terminate();
      await listener.close();
    }
  }

  it('gains little per call after a mark-compact in mid-load', async () => {
    expect(await gainPerCall('add', {}, /^\{"result":\{"content":\[\{"type":"text","text":"ok"\}\]/)).toBeLessThan(670);
  }, 60_000);

  it('gains little per call that sends a notification', async () => {
    expect(
      await gainPerCall(
        'step',
        { progressToken: 'p' },
        /^event: message\ndata: .*"notifications\/progress".*\n\nevent: message\ndata: .*"text":"ok"/s,
      ),
    ).toBeLessThan(2_000);
  }, 60_000);
});
