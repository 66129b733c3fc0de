// The limit: a hand-written JSON-RPC loop over stdio serving the same tools, with hand-written
// checks of the same constraints (raw-loop-tools.ts), no framework and no SDK.
// `node raw-loop-stdio.js [--extra N]`. It pages tools/list like Armature (100 tools a page, `nextCursor`).
import { extraToolsFromArgv, SERVER_INFO } from './bench-tools.js';
import { type Json, RawTools } from './raw-loop-tools.js';

const VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26'];
const tools = new RawTools(extraToolsFromArgv(process.argv));

const reply = (id: unknown, result: unknown) => `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${JSON.stringify(result)}}\n`;
const fail = (id: unknown, code: number, message: string) => `${JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } })}\n`;

function answer(message: Json): string {
  const { id, method } = message;
  const params = (message.params ?? {}) as Json;
  if (id === undefined) return ''; // a notification
  switch (method) {
    case 'initialize': {
      const asked = params.protocolVersion as string;
      const protocolVersion = VERSIONS.includes(asked) ? asked : VERSIONS[0];
      return reply(id, { protocolVersion, capabilities: { tools: { listChanged: true } }, serverInfo: SERVER_INFO });
    }
    case 'ping':
      return reply(id, {});
    case 'tools/list': {
      const body = tools.page(params.cursor);
      if (body === undefined) return fail(id, -32602, 'Invalid cursor');
      return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${body}}\n`;
    }
    case 'tools/call': {
      const outcome = tools.call(params.name, params.arguments);
      return outcome ? reply(id, outcome) : fail(id, -32602, `Unknown tool: ${String(params.name)}`);
    }
    default:
      return fail(id, -32601, 'Method not found');
  }
}

let buffered = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk: string) => {
  const lines = (buffered + chunk).split('\n');
  buffered = lines.pop() ?? '';
  let out = '';
  for (const line of lines) {
    if (line.trim() === '') continue;
    let message: Json;
    try {
      message = JSON.parse(line) as Json;
    } catch {
      out += fail(null, -32700, 'Parse error');
      continue;
    }
    out += answer(message);
  }
  if (out) process.stdout.write(out);
});
process.stdin.on('end', () => process.exit(0));
