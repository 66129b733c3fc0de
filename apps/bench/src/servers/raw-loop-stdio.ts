// The limit: a hand-written JSON-RPC loop over stdio serving the same tools, with hand-written
// checks of the same constraints (raw-loop-tools.ts), no framework and no SDK, written as a careful
// engineer would for speed: lines cut out of each chunk with indexOf (no split of the whole
// buffer), one JSON.parse per line, the JSON-RPC envelope and the arguments checked by hand, the
// answer written as a string (a tool's result is never built as an object and stringified), and one
// write per chunk read. `node raw-loop-stdio.js [--extra N]`. It pages tools/list like Armature
// (100 tools a page, `nextCursor`).
import { extraToolsFromArgv, SERVER_INFO } from './bench-tools.js';
import { type Json, RawTools } from './raw-loop-tools.js';

const VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26'];
const tools = new RawTools(extraToolsFromArgv(process.argv));

const head = (id: unknown) => `{"jsonrpc":"2.0","id":${typeof id === 'number' ? id : JSON.stringify(id)},"result":`;
const fail = (id: unknown, code: number, message: string) => `${JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } })}\n`;

/** The answer to one line: the JSON-RPC envelope checked, then the method served ('' for a notification). */
function answer(line: string): string {
  let message: unknown;
  try {
    message = JSON.parse(line);
  } catch {
    return fail(null, -32700, 'Parse error');
  }
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return fail(null, -32600, 'Invalid Request');
  const { jsonrpc, id, method, params } = message as Json;
  const request = id !== undefined;
  if (jsonrpc !== '2.0' || typeof method !== 'string' || (request && typeof id !== 'string' && !Number.isSafeInteger(id)))
    return fail(request ? id : null, -32600, 'Invalid Request');
  if (!request) return ''; // a notification
  if (params !== undefined && (typeof params !== 'object' || params === null || Array.isArray(params)))
    return fail(id, -32602, 'params: an object');
  const p = (params ?? {}) as Json;
  switch (method) {
    case 'tools/call': {
      const outcome = tools.call(p.name, p.arguments);
      return outcome === undefined ? fail(id, -32602, `Unknown tool: ${String(p.name)}`) : `${head(id)}${outcome}}}\n`;
    }
    case 'tools/list': {
      const body = tools.page(p.cursor);
      return body === undefined ? fail(id, -32602, 'Invalid cursor') : `${head(id)}${body}}\n`;
    }
    case 'initialize': {
      const asked = p.protocolVersion as string;
      const protocolVersion = VERSIONS.includes(asked) ? asked : VERSIONS[0];
      return `${head(id)}${JSON.stringify({ protocolVersion, capabilities: { tools: { listChanged: true } }, serverInfo: SERVER_INFO })}}\n`;
    }
    case 'ping':
      return `${head(id)}{}}\n`;
    default:
      return fail(id, -32601, 'Method not found');
  }
}

let pending = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk: string) => {
  const text = pending === '' ? chunk : pending + chunk;
  let out = '';
  let start = 0;
  for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
    // A blank line (or a lone \r) is skipped, as the SDK's reader does.
    if (end - start > 1 || (end - start === 1 && text.charCodeAt(start) !== 13)) out += answer(text.slice(start, end));
    start = end + 1;
  }
  pending = start === 0 ? text : text.slice(start);
  if (out !== '') process.stdout.write(out);
});
process.stdin.on('end', () => process.exit(0));
