// Figure 8: a corpus of malformed inputs, as raw bytes on the wire, over HTTP (both protocol
// revisions) and stdio. Every answer must carry the expected HTTP status and JSON-RPC error code,
// none may carry a stack trace or a file path, and a valid call right after each case must succeed.
//
// Where the expectation comes from is named per case: JSON-RPC 2.0 (error codes), the MCP
// 2025-11-25 / 2026-07-28 transport specs (statuses), HTTP semantics (406/413/415/405), and, for
// the code of an HTTP-level rejection the specs leave to the server, the SDK's convention -32000
// (-32001 for an unknown session).
import { withServer } from '../child.js';
import { Checks, type Mode, sleep } from '../report.js';
import type { StatsReport } from '../server/protocol.js';
import { type HttpAnswer, HttpClient, JSON_HEADERS, modernHeaders, sessionHeaders } from '../wire/http-peer.js';
import { CLIENT_INFO, initializeRequest, type JsonRpcMessage, leak, PROTOCOL_2026, resultText } from '../wire/jsonrpc.js';
import { StdioPeer } from '../wire/stdio-peer.js';

const FIVE_MIB = 5 * 1024 * 1024;

interface HttpCase {
  name: string;
  basis: string;
  /** Accepted statuses (the first is the one printed as expected). */
  status: number[];
  /** Expected JSON-RPC error code; undefined = no JSON-RPC error expected (e.g. 202). */
  code?: number;
  send: (c: HttpClient, session: string) => Promise<HttpAnswer>;
}

const raw = (c: HttpClient, body: string | Buffer, headers: Record<string, string>, method = 'POST') => c.send({ method, headers, body });
const inSession = (session: string) => ({ ...JSON_HEADERS, ...sessionHeaders(session) });
const modernMeta = (version = PROTOCOL_2026) => ({
  'io.modelcontextprotocol/protocolVersion': version,
  'io.modelcontextprotocol/clientInfo': CLIENT_INFO,
  'io.modelcontextprotocol/clientCapabilities': {},
});

function httpCases(): HttpCase[] {
  const big = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"token":"${'x'.repeat(FIVE_MIB)}"}}}`;
  const rpc = 'JSON-RPC 2.0';
  const t25 = 'MCP 2025-11-25 Streamable HTTP';
  const t26 = 'MCP 2026-07-28 Streamable HTTP';
  return [
    {
      name: 'bad JSON, in a session',
      basis: `${rpc} parse error; ${t25}: 400`,
      status: [400],
      code: -32700,
      send: (c, s) => raw(c, '{"jsonrpc":"2.0","id":1,', inSession(s)),
    },
    {
      name: 'bad JSON, no session',
      basis: `${rpc}; ${t25}`,
      status: [400],
      code: -32700,
      send: (c) => raw(c, 'not json at all', JSON_HEADERS),
    },
    {
      name: 'truncated initialize, no session',
      basis: `${rpc}; ${t25}`,
      status: [400],
      code: -32700,
      send: (c) => raw(c, JSON.stringify(initializeRequest(1)).slice(0, 40), JSON_HEADERS),
    },
    {
      name: 'empty body, in a session',
      basis: `${rpc} parse error`,
      status: [400],
      code: -32700,
      send: (c, s) => raw(c, '', inSession(s)),
    },
    {
      name: 'body is the number 42',
      basis: `${rpc} invalid request`,
      status: [400],
      code: -32600,
      send: (c, s) => raw(c, '42', inSession(s)),
    },
    { name: 'body is null', basis: `${rpc} invalid request`, status: [400], code: -32600, send: (c, s) => raw(c, 'null', inSession(s)) },
    {
      name: 'jsonrpc "1.0"',
      basis: `${rpc} invalid request`,
      status: [400],
      code: -32600,
      send: (c, s) => raw(c, '{"jsonrpc":"1.0","id":7,"method":"ping"}', inSession(s)),
    },
    {
      name: 'method is a number',
      basis: `${rpc} invalid request`,
      status: [400],
      code: -32600,
      send: (c, s) => raw(c, '{"jsonrpc":"2.0","id":8,"method":42}', inSession(s)),
    },
    {
      name: 'id is an object',
      basis: `${rpc} invalid request`,
      status: [400],
      code: -32600,
      send: (c, s) => raw(c, '{"jsonrpc":"2.0","id":{},"method":"ping"}', inSession(s)),
    },
    {
      name: 'id is null on a request',
      basis: `${rpc}; MCP: request ids must not be null`,
      status: [400],
      code: -32600,
      send: (c, s) => raw(c, '{"jsonrpc":"2.0","id":null,"method":"ping"}', inSession(s)),
    },
    {
      name: 'id is a boolean',
      basis: `${rpc} invalid request`,
      status: [400],
      code: -32600,
      send: (c, s) => raw(c, '{"jsonrpc":"2.0","id":true,"method":"ping"}', inSession(s)),
    },
    {
      name: 'params is a string',
      basis: `${rpc}: params must be structured`,
      status: [400],
      code: -32600,
      send: (c, s) => raw(c, '{"jsonrpc":"2.0","id":13,"method":"tools/list","params":"x"}', inSession(s)),
    },
    {
      name: 'unknown method',
      basis: `${rpc} method not found; in-band (HTTP 200) on 2025-11-25`,
      status: [200],
      code: -32601,
      send: (c, s) => raw(c, '{"jsonrpc":"2.0","id":5,"method":"no/such/method","params":{}}', inSession(s)),
    },
    {
      name: 'tools/call with wrong param types',
      basis: `${rpc} invalid params; MCP tools`,
      status: [200],
      code: -32602,
      send: (c, s) => raw(c, '{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":123,"arguments":"x"}}', inSession(s)),
    },
    {
      name: 'tools/call without params',
      basis: `${rpc} invalid params`,
      status: [200],
      code: -32602,
      send: (c, s) => raw(c, '{"jsonrpc":"2.0","id":9,"method":"tools/call"}', inSession(s)),
    },
    {
      name: 'tools/call of an unknown tool',
      basis: 'MCP tools: unknown tool is -32602',
      status: [200],
      code: -32602,
      send: (c, s) => raw(c, '{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"nope","arguments":{}}}', inSession(s)),
    },
    {
      name: 'a response to an id the server never sent',
      basis: `${t25}: 202 if accepted, else an HTTP error`,
      status: [202, 400],
      send: (c, s) => raw(c, '{"jsonrpc":"2.0","id":424242,"result":{}}', inSession(s)),
    },
    {
      name: 'batch on a 2025-11-25 session',
      basis: `${t25}: the body is one message (batches were removed in 2025-06-18)`,
      status: [400],
      code: -32600,
      send: (c, s) => raw(c, '[{"jsonrpc":"2.0","id":11,"method":"ping"},{"jsonrpc":"2.0","id":12,"method":"ping"}]', inSession(s)),
    },
    {
      name: 'initialize again inside a session',
      basis: `${rpc} invalid request (session already initialized)`,
      status: [400],
      code: -32600,
      send: (c, s) => raw(c, JSON.stringify(initializeRequest(14)), inSession(s)),
    },
    {
      name: '5 MiB body with Content-Length',
      basis: 'HTTP 413; SDK code -32000',
      status: [413],
      code: -32000,
      send: (c, s) => c.send({ headers: { ...inSession(s), 'content-length': String(Buffer.byteLength(big)) }, body: big }),
    },
    {
      name: '5 MiB body, chunked',
      basis: 'HTTP 413; SDK code -32000',
      status: [413],
      code: -32000,
      send: (c, s) => c.send({ headers: { ...inSession(s), 'transfer-encoding': 'chunked' }, body: big }),
    },
    {
      name: 'Content-Type: text/plain',
      basis: 'HTTP 415; SDK code -32000',
      status: [415],
      code: -32000,
      send: (c, s) => raw(c, '{"jsonrpc":"2.0","id":15,"method":"ping"}', { ...inSession(s), 'content-type': 'text/plain' }),
    },
    {
      name: 'no Content-Type',
      basis: 'HTTP 415; SDK code -32000',
      status: [415],
      code: -32000,
      send: (c, s) => raw(c, '{"jsonrpc":"2.0","id":16,"method":"ping"}', { accept: JSON_HEADERS.accept, ...sessionHeaders(s) }),
    },
    {
      name: 'no Accept',
      basis: `${t25}: Accept must list both types; HTTP 406; SDK code -32000`,
      status: [406],
      code: -32000,
      send: (c, s) => raw(c, '{"jsonrpc":"2.0","id":17,"method":"ping"}', { 'content-type': 'application/json', ...sessionHeaders(s) }),
    },
    {
      name: 'Accept: text/html',
      basis: 'HTTP 406; SDK code -32000',
      status: [406],
      code: -32000,
      send: (c, s) => raw(c, '{"jsonrpc":"2.0","id":18,"method":"ping"}', { ...inSession(s), accept: 'text/html' }),
    },
    {
      name: 'unknown session id',
      basis: `${t25}: 404; SDK code -32001`,
      status: [404],
      code: -32001,
      send: (c) =>
        raw(c, '{"jsonrpc":"2.0","id":19,"method":"ping"}', { ...JSON_HEADERS, ...sessionHeaders('00000000-0000-4000-8000-000000000000') }),
    },
    {
      name: 'no session id on a non-initialize request',
      basis: `${t25}: 400; SDK code -32000`,
      status: [400],
      code: -32000,
      send: (c) => raw(c, '{"jsonrpc":"2.0","id":20,"method":"tools/list"}', JSON_HEADERS),
    },
    {
      name: 'MCP-Protocol-Version: 1999-01-01',
      basis: `${t25}: unsupported version header is 400; SDK code -32000`,
      status: [400],
      code: -32000,
      send: (c, s) => raw(c, '{"jsonrpc":"2.0","id":21,"method":"ping"}', { ...inSession(s), 'mcp-protocol-version': '1999-01-01' }),
    },
    {
      name: 'Host: evil.example',
      basis: `${t25} DNS-rebinding protection: 403; SDK code -32000`,
      status: [403],
      code: -32000,
      send: (c, s) => raw(c, '{"jsonrpc":"2.0","id":22,"method":"ping"}', { ...inSession(s), host: 'evil.example' }),
    },
    {
      name: 'Origin: http://evil.example',
      basis: `${t25}: invalid Origin is 403; SDK code -32000`,
      status: [403],
      code: -32000,
      send: (c, s) => raw(c, '{"jsonrpc":"2.0","id":23,"method":"ping"}', { ...inSession(s), origin: 'http://evil.example' }),
    },
    { name: 'PUT', basis: 'HTTP 405; SDK code -32000', status: [405], code: -32000, send: (c, s) => raw(c, '{}', inSession(s), 'PUT') },
    {
      name: 'DELETE of an unknown session',
      basis: `${t25}: 404; SDK code -32001`,
      status: [404],
      code: -32001,
      send: (c) => c.send({ method: 'DELETE', headers: sessionHeaders('00000000-0000-4000-8000-000000000001') }),
    },
    {
      name: 'GET of an unknown session',
      basis: `${t25}: 404; SDK code -32001`,
      status: [404],
      code: -32001,
      send: (c) =>
        c.send({ method: 'GET', headers: { accept: 'text/event-stream', ...sessionHeaders('00000000-0000-4000-8000-000000000002') } }),
    },
    {
      name: '2026-07-28: unknown method',
      basis: `${t26}: unknown method is 404 + -32601`,
      status: [404],
      code: -32601,
      send: (c) =>
        raw(c, JSON.stringify({ jsonrpc: '2.0', id: 30, method: 'no/such/method', params: { _meta: modernMeta() } }), {
          ...JSON_HEADERS,
          ...modernHeaders('no/such/method'),
        }),
    },
    {
      name: '2026-07-28: Mcp-Method header disagrees with the body',
      basis: `${t26}: header mismatch is 400 + -32020`,
      status: [400],
      code: -32020,
      send: (c) =>
        raw(c, JSON.stringify({ jsonrpc: '2.0', id: 31, method: 'tools/list', params: { _meta: modernMeta() } }), {
          ...JSON_HEADERS,
          ...modernHeaders('prompts/list'),
        }),
    },
    {
      name: '2026-07-28: no Mcp-Method header',
      basis: `${t26}: missing required header is 400 + -32020`,
      status: [400],
      code: -32020,
      send: (c) =>
        raw(c, JSON.stringify({ jsonrpc: '2.0', id: 32, method: 'tools/list', params: { _meta: modernMeta() } }), {
          ...JSON_HEADERS,
          'mcp-protocol-version': PROTOCOL_2026,
        }),
    },
    {
      name: '2026-07-28: tools/call with wrong param types',
      basis: `${t26}: invalid params is in-band (HTTP 200) + -32602`,
      status: [200],
      code: -32602,
      send: (c) =>
        raw(
          c,
          JSON.stringify({ jsonrpc: '2.0', id: 33, method: 'tools/call', params: { name: 123, arguments: 'x', _meta: modernMeta() } }),
          {
            ...JSON_HEADERS,
            ...modernHeaders('tools/call', '123'),
          },
        ),
    },
    {
      name: '2026-07-28: tools/call of an unknown tool',
      basis: `${t26}: in-band (HTTP 200) + -32602`,
      status: [200],
      code: -32602,
      send: (c) =>
        raw(
          c,
          JSON.stringify({ jsonrpc: '2.0', id: 34, method: 'tools/call', params: { name: 'nope', arguments: {}, _meta: modernMeta() } }),
          {
            ...JSON_HEADERS,
            ...modernHeaders('tools/call', 'nope'),
          },
        ),
    },
    {
      name: '2026-07-28: unsupported protocol version 2099-01-01',
      basis: `${t26}: unsupported version is 400 + -32022`,
      status: [400],
      code: -32022,
      send: (c) =>
        raw(c, JSON.stringify({ jsonrpc: '2.0', id: 35, method: 'tools/list', params: { _meta: modernMeta('2099-01-01') } }), {
          ...JSON_HEADERS,
          'mcp-protocol-version': '2099-01-01',
          'mcp-method': 'tools/list',
        }),
    },
  ];
}

interface StdioCase {
  name: string;
  basis: string;
  bytes: string | Buffer;
  /** The expected answer: its code and id (null for an id the server cannot know), or none at all. */
  expect: { code: number; id: number | null } | 'none';
}

function stdioCases(): StdioCase[] {
  const rpc = 'JSON-RPC 2.0';
  return [
    { name: 'bad JSON', basis: `${rpc} parse error, id null`, bytes: '{not json\n', expect: { code: -32700, id: null } },
    {
      name: 'truncated message',
      basis: `${rpc} parse error`,
      bytes: '{"jsonrpc":"2.0","id":3,"meth\n',
      expect: { code: -32700, id: null },
    },
    {
      name: 'invalid UTF-8 bytes',
      basis: `${rpc} parse error`,
      bytes: Buffer.from([0xff, 0xfe, 0x7b, 0x22, 0xc3, 0x28, 0x0a]),
      expect: { code: -32700, id: null },
    },
    {
      name: 'invalid UTF-8 inside a valid request',
      basis: `${rpc} parse error: the bytes are not JSON text (RFC 8259 §8.1), never decoded leniently (issue 9)`,
      bytes: Buffer.concat([
        Buffer.from('{"jsonrpc":"2.0","id":15,"method":"ping","params":{"x":"'),
        Buffer.from([0xff]),
        Buffer.from('"}}\n'),
      ]),
      expect: { code: -32700, id: null },
    },
    { name: 'empty object', basis: `${rpc} invalid request`, bytes: '{}\n', expect: { code: -32600, id: null } },
    { name: 'the number 42', basis: `${rpc} invalid request`, bytes: '42\n', expect: { code: -32600, id: null } },
    { name: 'a string', basis: `${rpc} invalid request`, bytes: '"hello"\n', expect: { code: -32600, id: null } },
    {
      name: 'batch',
      basis: 'MCP 2025-11-25 stdio: one message per line, no batches',
      bytes: '[{"jsonrpc":"2.0","id":40,"method":"ping"},{"jsonrpc":"2.0","id":41,"method":"ping"}]\n',
      expect: { code: -32600, id: null },
    },
    {
      name: 'jsonrpc "1.0"',
      basis: `${rpc} invalid request, id echoed`,
      bytes: '{"jsonrpc":"1.0","id":7,"method":"ping"}\n',
      expect: { code: -32600, id: 7 },
    },
    {
      name: 'method is a number',
      basis: `${rpc} invalid request, id echoed`,
      bytes: '{"jsonrpc":"2.0","id":8,"method":42}\n',
      expect: { code: -32600, id: 8 },
    },
    {
      name: 'id is an object',
      basis: `${rpc} invalid request, id null`,
      bytes: '{"jsonrpc":"2.0","id":{},"method":"ping"}\n',
      expect: { code: -32600, id: null },
    },
    {
      name: 'id is null on a request',
      basis: `${rpc}; MCP ids are not null`,
      bytes: '{"jsonrpc":"2.0","id":null,"method":"ping"}\n',
      expect: { code: -32600, id: null },
    },
    {
      name: 'id is a boolean',
      basis: `${rpc} invalid request`,
      bytes: '{"jsonrpc":"2.0","id":true,"method":"ping"}\n',
      expect: { code: -32600, id: null },
    },
    {
      name: 'params is a string',
      basis: `${rpc}: params must be structured`,
      bytes: '{"jsonrpc":"2.0","id":13,"method":"tools/list","params":"x"}\n',
      expect: { code: -32600, id: 13 },
    },
    {
      name: 'unknown method',
      basis: `${rpc} method not found`,
      bytes: '{"jsonrpc":"2.0","id":9,"method":"no/such/method"}\n',
      expect: { code: -32601, id: 9 },
    },
    {
      name: 'tools/call with wrong param types',
      basis: `${rpc} invalid params`,
      bytes: '{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":123,"arguments":"x"}}\n',
      expect: { code: -32602, id: 10 },
    },
    {
      name: 'tools/call without params',
      basis: `${rpc} invalid params`,
      bytes: '{"jsonrpc":"2.0","id":11,"method":"tools/call"}\n',
      expect: { code: -32602, id: 11 },
    },
    {
      name: 'tools/call of an unknown tool',
      basis: 'MCP tools: -32602',
      bytes: '{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"nope","arguments":{}}}\n',
      expect: { code: -32602, id: 12 },
    },
    {
      name: '5 MiB line',
      basis: "over the 4 MiB message limit: invalid request, answered to the id read from the line's head (issue 9)",
      bytes: `{"jsonrpc":"2.0","id":14,"method":"tools/call","params":{"name":"echo","arguments":{"token":"${'x'.repeat(FIVE_MIB)}"}}}\n`,
      expect: { code: -32600, id: 14 },
    },
    {
      name: 'a response to an id never sent',
      basis: `${rpc}: nothing to answer`,
      bytes: '{"jsonrpc":"2.0","id":424242,"result":{}}\n',
      expect: 'none',
    },
    {
      name: 'a notification of an unknown method',
      basis: `${rpc}: notifications are never answered`,
      bytes: '{"jsonrpc":"2.0","method":"notifications/nope"}\n',
      expect: 'none',
    },
    { name: 'blank lines', basis: 'nothing to answer', bytes: '\n   \n\t\n', expect: 'none' },
  ];
}

const got = (status: number, code: unknown) => `${status}/${code === undefined ? '-' : String(code)}`;

export async function figure8(_mode: Mode): Promise<Checks & { measured?: string }> {
  const checks: Checks & { measured?: string } = new Checks();
  let total = 0;
  let good = 0;
  let leaks = 0;
  let notServing = 0;

  await withServer({ transport: 'http' }, async (server) => {
    const client = new HttpClient(server.url as string, 4);
    try {
      let session = await client.openSession();
      let token = 0;
      const valid = async () => {
        const t = `ok-${++token}`;
        const reply = await client.call(session, 1000 + token, 'echo', { token: t }).catch(() => undefined);
        return reply?.status === 200 && resultText(reply.messages[0] ?? {}) === t;
      };
      for (const c of httpCases()) {
        total++;
        let answer: HttpAnswer | undefined;
        let failure: string | undefined;
        try {
          answer = await c.send(client, session);
        } catch (error) {
          failure = `no HTTP answer (${(error as Error).message})`;
        }
        const code = answer?.messages.find((m: JsonRpcMessage) => m.error)?.error?.code;
        const statusOk = answer !== undefined && c.status.includes(answer.status);
        const codeOk = c.code === undefined ? code === undefined : code === c.code;
        const problem = answer ? leak(answer.text) : undefined;
        const after = await valid();
        if (problem) leaks++;
        if (!after) notServing++;
        if (!after) session = await client.openSession().catch(() => session);
        const ok = !failure && statusOk && codeOk && !problem && after;
        if (ok) good++;
        const expected = `${c.status.join(' or ')}/${c.code ?? '-'}`;
        checks.line(
          `http  ${ok ? 'ok  ' : 'FAIL'} ${c.name}: expected ${expected}, got ${answer ? got(answer.status, code) : failure}` +
            `${problem ? `, LEAK ${problem}` : ''}${after ? '' : ', valid call after it FAILED'} [${c.basis}]`,
        );
        checks.expect(
          ok,
          `http "${c.name}": expected ${expected}, got ${answer ? got(answer.status, code) : failure}${problem ? `; ${problem}` : ''}${after ? '' : '; the next valid call failed'}${answer && !statusOk ? `; body ${answer.text.slice(0, 160)}` : ''}`,
        );
      }
      const stats = await server.ask<StatsReport>({ cmd: 'stats' });
      checks.expect(
        server.alive && stats.unhandledRejections === 0,
        `http server exited or had ${stats.unhandledRejections} unhandled rejections`,
      );
    } finally {
      client.destroy();
    }
  });

  await withServer({ transport: 'stdio' }, async (server) => {
    const peer = new StdioPeer(server);
    peer.keepRaw = true;
    await peer.initialize();
    let token = 0;
    for (const c of stdioCases()) {
      total++;
      const before = peer.received;
      const rawBefore = peer.raw.length;
      let answer: JsonRpcMessage | undefined;
      if (c.expect !== 'none') {
        const waiting = c.expect.id === null ? peer.waitForNullId(5_000) : peer.waitFor(c.expect.id, 5_000);
        await peer.write(c.bytes);
        answer = await waiting;
      } else await peer.write(c.bytes);
      const t = `ok-${++token}`;
      const after = await peer.request('tools/call', { name: 'echo', arguments: { token: t } }, 10_000);
      const afterOk = after !== undefined && resultText(after) === t;
      await sleep(20);
      const extra = peer.received - before - (answer ? 1 : 0) - (after ? 1 : 0);
      const text = peer.raw.slice(rawBefore).join('\n');
      const problem = leak(text);
      if (problem) leaks++;
      if (!afterOk) notServing++;
      let ok: boolean;
      let gotText: string;
      let expected: string;
      if (c.expect === 'none') {
        expected = 'no answer';
        gotText =
          extra === 0
            ? 'no answer'
            : `${extra} answer(s): ${peer.raw
                .slice(rawBefore, rawBefore + 1)
                .join('')
                .slice(0, 120)}`;
        ok = extra === 0;
      } else {
        expected = `${c.expect.code} with id ${c.expect.id}`;
        gotText = answer ? `${String(answer.error?.code ?? 'a result')} with id ${String(answer.id)}` : 'no answer within 5 s';
        ok = answer?.error?.code === c.expect.code && answer.id === c.expect.id && extra === 0;
        if (extra !== 0) gotText += `, plus ${extra} more line(s)`;
      }
      ok = ok && !problem && afterOk;
      if (ok) good++;
      checks.line(
        `stdio ${ok ? 'ok  ' : 'FAIL'} ${c.name}: expected ${expected}, got ${gotText}${problem ? `, LEAK ${problem}` : ''}${afterOk ? '' : ', valid call after it FAILED'} [${c.basis}]`,
      );
      checks.expect(
        ok,
        `stdio "${c.name}": expected ${expected}, got ${gotText}${problem ? `; ${problem}` : ''}${afterOk ? '' : '; the next valid call failed'}`,
      );
    }
    const stats = await server.ask<StatsReport>({ cmd: 'stats' });
    checks.expect(
      server.alive && stats.unhandledRejections === 0,
      `stdio server exited or had ${stats.unhandledRejections} unhandled rejections`,
    );
    checks.expect(peer.garbage.length === 0, `stdio: ${peer.garbage.length} non-JSON lines on stdout`);
  });
  checks.measured = `${good} of ${total} cases answered as expected; ${leaks} answers leaking a stack or path; a valid call failed after ${notServing} cases`;
  return checks;
}
