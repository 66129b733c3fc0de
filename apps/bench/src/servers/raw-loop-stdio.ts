// The limit: a hand-written JSON-RPC loop over stdio serving the same tools, with hand-written
// checks of the same constraints, no framework and no SDK. `node raw-loop-stdio.js [--extra N]`.
// It pages tools/list like Armature (100 tools a page, `nextCursor`), each page prebuilt as JSON.
import {
  ADD_DESCRIPTION,
  addText,
  extraToolDescription,
  extraToolName,
  extraToolsFromArgv,
  KINDS,
  type Kind,
  SEARCH_DESCRIPTION,
  SERVER_INFO,
  type SearchArgs,
  searchText,
} from './bench-tools.js';

const PAGE_SIZE = 100;
const VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26'];

type Json = Record<string, unknown>;
type Handler = (args: Json) => string | { error: string };

const addSchema = {
  type: 'object',
  properties: {
    a: { type: 'number', description: 'The first addend' },
    b: { type: 'number', description: 'The second addend' },
  },
  required: ['a', 'b'],
};
const searchSchema = {
  type: 'object',
  properties: {
    query: { type: 'string', minLength: 2, maxLength: 200 },
    filters: {
      type: 'object',
      properties: {
        tags: { type: 'array', items: { type: 'string' }, maxItems: 10 },
        kinds: { type: 'array', items: { type: 'string', enum: KINDS }, minItems: 1 },
        minStars: { type: 'integer', minimum: 0 },
      },
      required: ['tags', 'kinds'],
    },
    limit: { type: 'integer', minimum: 1, maximum: 50 },
  },
  required: ['query', 'filters'],
};

const add: Handler = ({ a, b }) => (typeof a === 'number' && typeof b === 'number' ? addText(a, b) : { error: 'a and b must be numbers' });

const isInt = (value: unknown, min: number, max = Number.MAX_SAFE_INTEGER) =>
  typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;

const search: Handler = (args) => {
  const { query, filters, limit } = args;
  if (typeof query !== 'string' || query.length < 2 || query.length > 200) return { error: 'query: 2 to 200 characters' };
  if (limit !== undefined && !isInt(limit, 1, 50)) return { error: 'limit: an integer from 1 to 50' };
  if (typeof filters !== 'object' || filters === null || Array.isArray(filters)) return { error: 'filters: an object' };
  const { tags, kinds, minStars } = filters as Json;
  if (!Array.isArray(tags) || tags.length > 10 || !tags.every((t) => typeof t === 'string'))
    return { error: 'filters.tags: up to 10 strings' };
  if (!Array.isArray(kinds) || kinds.length < 1 || !kinds.every((k) => KINDS.includes(k as Kind))) {
    return { error: `filters.kinds: one or more of ${KINDS.join(', ')}` };
  }
  if (minStars !== undefined && !isInt(minStars, 0)) return { error: 'filters.minStars: an integer >= 0' };
  return searchText(args as unknown as SearchArgs);
};

const tools: { name: string; description: string; inputSchema: Json; handler: Handler }[] = [
  { name: 'add', description: ADD_DESCRIPTION, inputSchema: addSchema, handler: add },
  { name: 'search', description: SEARCH_DESCRIPTION, inputSchema: searchSchema, handler: search },
];
for (let i = 1, extra = extraToolsFromArgv(process.argv); i <= extra; i++) {
  tools.push({ name: extraToolName(i), description: extraToolDescription(i), inputSchema: addSchema, handler: add });
}
const handlers = new Map(tools.map((t) => [t.name, t.handler]));
const pages: string[] = [];
for (let from = 0; from < tools.length; from += PAGE_SIZE) {
  const page = tools.slice(from, from + PAGE_SIZE).map(({ name, description, inputSchema }) => ({ name, description, inputSchema }));
  const next = from + PAGE_SIZE < tools.length ? { nextCursor: String(from + PAGE_SIZE) } : {};
  pages.push(JSON.stringify({ tools: page, ...next }));
}

const reply = (id: unknown, result: unknown) => `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${JSON.stringify(result)}}\n`;
const fail = (id: unknown, code: number, message: string) => `${JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } })}\n`;
const text = (value: string, isError = false) => ({ content: [{ type: 'text', text: value }], ...(isError ? { isError } : {}) });

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
      const page = params.cursor === undefined ? 0 : Number(params.cursor) / PAGE_SIZE;
      const body = pages[page];
      if (!Number.isInteger(page) || body === undefined) return fail(id, -32602, 'Invalid cursor');
      return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${body}}\n`;
    }
    case 'tools/call': {
      const handler = handlers.get(params.name as string);
      if (!handler) return fail(id, -32602, `Unknown tool: ${String(params.name)}`);
      const outcome = handler((params.arguments ?? {}) as Json);
      return reply(id, typeof outcome === 'string' ? text(outcome) : text(outcome.error, true));
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
