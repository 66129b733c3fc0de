// The limit over HTTP: a hand-written 2026-07-28 stateless JSON-RPC server on node:http, no
// framework and no SDK, serving the tools of the stdio loop with the same checks
// (raw-loop-tools.ts). It checks what the 2026-07-28 servers check before serving a call: Host and
// Origin (DNS rebinding), method and path, body size, Content-Type, Accept, a JSON-RPC request,
// the MCP-Protocol-Version header against the body's envelope, Mcp-Method and Mcp-Name against the
// body; and it answers tools/call as they do (`resultType` and the envelope's `serverInfo` in the result).
// Written as a careful engineer would for speed: the body kept as the one Buffer it nearly always is,
// one JSON.parse, the checks by hand, the answer written as a string with its constant tail prebuilt,
// Content-Length set, keep-alive connections (node:http's default).
// 127.0.0.1, port 0: prints `listening <url>` on stdout, stops on SIGTERM.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SERVER_INFO } from './bench-tools.js';
import { type Json, RawTools } from './raw-loop-tools.js';

const VERSION = '2026-07-28';
const PROTOCOL_VERSION_META = 'io.modelcontextprotocol/protocolVersion';
const SERVER_INFO_META = 'io.modelcontextprotocol/serverInfo';
const MAX_BODY = 4 * 1024 * 1024;
const ALLOWED_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

const tools = new RawTools(0);
/** What closes every tools/call result: the same bytes for each call. */
const RESULT_TAIL = `,"resultType":"complete","_meta":${JSON.stringify({ [SERVER_INFO_META]: SERVER_INFO })}}`;

function send(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

const failure = (id: unknown, code: number, message: string) =>
  JSON.stringify({ jsonrpc: '2.0', id: id ?? null, error: { code, message } });
const success = (id: unknown, result: string) =>
  `{"jsonrpc":"2.0","id":${typeof id === 'number' ? id : JSON.stringify(id)},"result":${result}}`;

/** Whether a Content-Type is application/json (parameters allowed, any case). */
function isJson(type: string | undefined): boolean {
  if (type === undefined || type.length < 16) return false;
  if (type.length > 16 && type.charCodeAt(16) !== 59 /* ; */) return false;
  return type.startsWith('application/json') || type.slice(0, 16).toLowerCase() === 'application/json';
}

/** The host name of a Host header or an Origin, without the port. */
function hostName(value: string): string {
  return value.startsWith('[') ? value.slice(0, value.indexOf(']') + 1) : (value.split(':')[0] ?? '');
}

/** The refusal of a request's line and headers, if any (status, JSON-RPC code, message). */
function refusal(req: IncomingMessage): [number, number, string] | undefined {
  const { host, origin } = req.headers;
  if (!host || !ALLOWED_HOSTS.has(hostName(host))) return [403, -32000, `Invalid Host header: ${host}`];
  if (origin !== undefined) {
    let originHost: string;
    try {
      originHost = new URL(origin).host;
    } catch {
      return [403, -32000, `Invalid Origin header: ${origin}`];
    }
    if (!ALLOWED_HOSTS.has(hostName(originHost))) return [403, -32000, `Invalid Origin header: ${origin}`];
  }
  if (req.url !== '/mcp') return [404, -32000, 'Not found'];
  if (req.method !== 'POST') return [405, -32000, 'Method not allowed'];
  if (Number(req.headers['content-length'] ?? 0) > MAX_BODY) return [413, -32000, `Payload Too Large: at most ${MAX_BODY} bytes`];
  if (!isJson(req.headers['content-type'])) return [415, -32000, 'Content-Type must be application/json'];
  if (!(req.headers.accept ?? '').includes('application/json')) return [406, -32000, 'Accept must include application/json'];
  return undefined;
}

/** The answer to a parsed body: [HTTP status, JSON body]. */
function answer(req: IncomingMessage, message: unknown): [number, string] {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return [400, failure(null, -32600, 'Invalid Request')];
  const { jsonrpc, id, method, params } = message as Json;
  if (jsonrpc !== '2.0' || typeof method !== 'string' || (typeof id !== 'string' && !Number.isSafeInteger(id))) {
    return [400, failure(id, -32600, 'Invalid Request')];
  }
  if (typeof params !== 'object' || params === null || Array.isArray(params)) return [400, failure(id, -32602, 'params: an object')];
  const { _meta: meta, name, arguments: args } = params as Json;
  const version = (meta as Json | undefined)?.[PROTOCOL_VERSION_META];
  const versionHeader = req.headers['mcp-protocol-version'];
  if (version !== VERSION || versionHeader !== VERSION) {
    return [
      400,
      failure(
        id,
        -32020,
        `the MCP-Protocol-Version header (${versionHeader}) and the body's envelope (${version}) must both name ${VERSION}`,
      ),
    ];
  }
  if (req.headers['mcp-method'] !== method) return [400, failure(id, -32020, `the Mcp-Method header must name ${method}`)];
  if (method === 'tools/call') {
    if (req.headers['mcp-name'] !== name) return [400, failure(id, -32020, `the Mcp-Name header must name ${String(name)}`)];
    const outcome = tools.call(name, args);
    if (outcome === undefined) return [200, failure(id, -32602, `Unknown tool: ${String(name)}`)];
    return [200, success(id, `${outcome}${RESULT_TAIL}`)];
  }
  return [200, failure(id, -32601, 'Method not found')];
}

const http = createServer((req, res) => {
  const refused = refusal(req);
  if (refused) {
    const [status, code, message] = refused;
    send(res, status, failure(null, code, message));
    req.resume();
    return;
  }
  // A small body comes in one chunk: it is kept as is, and only joined when there are more.
  let first: Buffer | undefined;
  let more: Buffer[] | undefined;
  let size = 0;
  req.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > MAX_BODY) return;
    if (first === undefined) first = chunk;
    else if (more === undefined) more = [first, chunk];
    else more.push(chunk);
  });
  req.on('end', () => {
    if (size > MAX_BODY) return send(res, 413, failure(null, -32000, `Payload Too Large: at most ${MAX_BODY} bytes`));
    let message: unknown;
    try {
      message = JSON.parse((more ? Buffer.concat(more, size) : (first ?? Buffer.alloc(0))).toString('utf8'));
    } catch {
      return send(res, 400, failure(null, -32700, 'Parse error'));
    }
    const [status, body] = answer(req, message);
    send(res, status, body);
  });
});
http.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp\n`);
});
process.once('SIGTERM', () => {
  http.close(() => process.exit(0));
  http.closeIdleConnections();
});
