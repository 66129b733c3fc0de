import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  ArmatureBuildError,
  audio,
  Context,
  createMcpApp,
  type ErrorFilter,
  embeddedResource,
  Field,
  image,
  McpError,
  McpServer,
  type Middleware,
  resourceLink,
  Tool,
  ToolError,
  text,
} from '@armature/core';
import { ProtocolError } from '@modelcontextprotocol/client';
import { IsString, ValidateNested } from 'class-validator';
import { connectInMemory, expectEqual, json } from './support/check.js';

// #region conversions
@McpServer({ name: 'results', version: '1.0.0' })
export class ResultsServer {
  @Tool({ description: 'a string' })
  greeting() {
    return 'Hello, Ada!';
  }
  @Tool({ description: 'an object' })
  user() {
    return { id: 7, name: 'Ada' };
  }
  @Tool({ description: 'an array' })
  primes() {
    return [2, 3, 5];
  }
  @Tool({ description: 'a number' })
  answer() {
    return 42;
  }
  @Tool({ description: 'null' })
  nothingFound() {
    return null;
  }
  @Tool({ description: 'a content block' })
  block() {
    return text('Hi');
  }
  @Tool({ description: 'content blocks' })
  blocks() {
    return [text('Chart:'), image('iVBORw0KGgo=', 'image/png')];
  }
  @Tool({ description: 'a whole result' })
  whole() {
    return { content: [text('2 rows')], structuredContent: { rows: 2 } };
  }
  @Tool({ description: 'an error result' })
  refused() {
    return { content: [text('Quota exceeded')], isError: true };
  }
  @Tool({ description: 'data under content' })
  emptyList() {
    return { content: [] };
  }
  @Tool({ description: 'a bigint' })
  huge() {
    return 10n ** 20n;
  }
  @Tool({ description: 'nothing' })
  done() {
    return undefined;
  }
}
// #endregion

// #region helpers
const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47]);

@McpServer({ name: 'reports', version: '1.0.0' })
export class ReportsServer {
  @Tool({ description: 'The quarterly report, as text, chart, audio summary and files' })
  quarterlyReport() {
    return [
      text('Revenue is up 12% this quarter.'),
      image(PNG, 'image/png'), // bytes or a base64 string
      audio('UklGRiQAAABXQVZF', 'audio/wav'),
      resourceLink('file:///reports/q3.csv', 'q3.csv', { mimeType: 'text/csv', description: 'Raw figures' }),
      embeddedResource('file:///reports/q3.md', '# Q3\nRevenue +12%', { mimeType: 'text/markdown' }),
      embeddedResource('file:///reports/q3.png', PNG, { mimeType: 'image/png' }), // bytes become a base64 blob
    ];
  }
}
// #endregion

// #region errors
export class UserIdInput {
  @Field('The user id, as listed by list_users')
  @IsString()
  id!: string;
}

@McpServer({ name: 'users', version: '1.0.0' })
export class UsersServer {
  private readonly users = new Map([['1', { id: '1', name: 'Ada' }]]);

  @Tool({ description: 'Get one user by id' })
  getUser(input: UserIdInput) {
    const user = this.users.get(input.id);
    // Meant for the model: say what went wrong and what to do next.
    if (!user) throw new ToolError(`No user with id ${input.id}. Call list_users to see valid ids.`, { knownIds: [...this.users.keys()] });
    return user;
  }

  @Tool({ description: 'Delete a user', annotations: { destructiveHint: true } })
  deleteUser(input: UserIdInput, ctx: Context) {
    // The request itself is refused: a JSON-RPC error, not a tool result.
    if (ctx.meta.role !== 'admin') throw new McpError(-32001, 'Not authorised for this workspace');
    this.users.delete(input.id);
    return `Deleted user ${input.id}`;
  }

  @Tool({ description: 'Export every user as CSV' })
  exportUsers(): string {
    throw new Error('connection to the user database was lost'); // unexpected: reported, and sent as a tool error
  }
}
// #endregion

// #region error-filter
export class DatabaseError extends Error {}

/** Database outages become a tool error worded for the model; everything else keeps the default. */
export const errorFilter: ErrorFilter = (error) =>
  error instanceof DatabaseError ? new ToolError('The user database is unavailable; try again in a minute.') : error;
// #endregion

// #region middleware
/** Refuses every tools/call that does not name its tenant in _meta. */
export const requireTenant: Middleware = async (request, next) => {
  if (request.method === 'tools/call' && typeof request.context.meta.tenant !== 'string') {
    throw new Error('every call must carry _meta.tenant');
  }
  return next();
};
// #endregion

// #region timeout
@McpServer({ name: 'crawler', version: '1.0.0' })
export class CrawlerServer {
  @Tool({ description: 'Crawl a site' })
  async crawl(ctx: Context) {
    await sleep(10_000, undefined, { signal: ctx.signal }); // aborted when the call times out
    return 'crawled';
  }
}
// #endregion

// #region build-error
class Location {
  @IsString() city!: string;
}

class Untyped {
  name!: string;
}

export class ShipInput {
  @ValidateNested() // no @Type(() => Location)
  to!: Location;
}

@McpServer({ name: 'shipping', version: '1.0.0' })
export class ShippingServer {
  @Tool({ name: 'ship parcel', description: 'Ship a parcel' })
  ship(input: ShipInput) {
    return input.to.city;
  }

  @Tool({ description: '' })
  track(input: Untyped) {
    return input.name;
  }
}
// #endregion

export const outputs: Record<string, string> = {
  'conversion-table': '',
  helpers: `[
  {
    "type": "text",
    "text": "Revenue is up 12% this quarter."
  },
  {
    "type": "image",
    "data": "iVBORw==",
    "mimeType": "image/png"
  },
  {
    "type": "audio",
    "data": "UklGRiQAAABXQVZF",
    "mimeType": "audio/wav"
  },
  {
    "type": "resource_link",
    "uri": "file:///reports/q3.csv",
    "name": "q3.csv",
    "mimeType": "text/csv",
    "description": "Raw figures"
  },
  {
    "type": "resource",
    "resource": {
      "uri": "file:///reports/q3.md",
      "text": "# Q3\\nRevenue +12%",
      "mimeType": "text/markdown"
    }
  },
  {
    "type": "resource",
    "resource": {
      "uri": "file:///reports/q3.png",
      "blob": "iVBORw==",
      "mimeType": "image/png"
    }
  }
]`,
  'tool-error': `{
  "content": [
    {
      "type": "text",
      "text": "No user with id 9. Call list_users to see valid ids."
    }
  ],
  "isError": true,
  "structuredContent": {
    "knownIds": [
      "1"
    ]
  }
}`,
  'unexpected-error': `{
  "content": [
    {
      "type": "text",
      "text": "Tool \\"exportUsers\\" failed unexpectedly; the error was logged on the server (request 4, error 5f3a9c1e)"
    }
  ],
  "isError": true
}`,
  'middleware-error': 'every call must carry _meta.tenant',
  'build-error': `Armature cannot start the MCP server: 4 problems in the decorated classes.
  1. ShippingServer.ship: the tool name "ship parcel" is invalid: a name is 1-128 characters of A-Z a-z 0-9 _ . - [ARM106]
     Fix: @Tool({ name: 'ship_parcel', ... })
  2. ShippingServer.ship: ShipInput.to has @ValidateNested() but no @Type(() => SomeDto), so its value would stay a plain object [ARM209]
     Fix: add \`@Type(() => YourNestedDto)\` (from class-transformer) to ShipInput.to
  3. ShippingServer.track: the tool has no description (the model reads it to decide when to call the tool) [ARM108]
     Fix: @Tool({ description: 'What track does and when to use it' })
  4. ShippingServer.track: DTO Untyped has no class-validator decorators, so no argument could be validated [ARM205]
     Fix: decorate each property, e.g. \`@IsString() name!: string;\` (use \`@Allow()\` to accept any value)`,
};
outputs['conversion-table'] = CONVERSION_TABLE();

/**
 * The expected client-side result of each ResultsServer method, in declaration order: the guide's
 * table is generated from these and from the method bodies, and main() checks them against real calls.
 */
function expectedConversions(): Record<string, unknown> {
  return {
    greeting: { content: [{ type: 'text', text: 'Hello, Ada!' }] },
    user: { content: [{ type: 'text', text: '{"id":7,"name":"Ada"}' }], structuredContent: { id: 7, name: 'Ada' } },
    primes: { content: [{ type: 'text', text: '[2,3,5]' }] },
    answer: { content: [{ type: 'text', text: '42' }] },
    nothingFound: { content: [{ type: 'text', text: 'null' }] },
    block: { content: [{ type: 'text', text: 'Hi' }] },
    blocks: {
      content: [
        { type: 'text', text: 'Chart:' },
        { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
      ],
    },
    whole: { content: [{ type: 'text', text: '2 rows' }], structuredContent: { rows: 2 } },
    refused: { content: [{ type: 'text', text: 'Quota exceeded' }], isError: true },
    emptyList: { content: [{ type: 'text', text: '{"content":[]}' }], structuredContent: { content: [] } },
    huge: {
      content: [{ type: 'text', text: 'Tool "huge" returned a value that cannot be sent as JSON: Do not know how to serialize a BigInt' }],
      isError: true,
    },
    done: { content: [] },
  };
}

/** `| method returns | the client receives |`, one row per method of the conversions region. */
function CONVERSION_TABLE(): string {
  const source = readFileSync(new URL(import.meta.url), 'utf8');
  const start = source.indexOf('// #region conversions');
  const region = source.slice(start, source.indexOf('// #endregion', start));
  const expected = expectedConversions();
  const rows = [...region.matchAll(/^ {2}@Tool\(.*\)\n {2}(\w+)\(\) \{\n {4}return (.+);\n {2}\}$/gm)].map(([, name, returned]) => {
    if (!((name as string) in expected)) throw new Error(`no expected result for ${name}`);
    return `| \`${returned}\` | \`${JSON.stringify(expected[name as string])}\` |`;
  });
  if (rows.length !== Object.keys(expected).length) throw new Error('a conversions line was not understood');
  return ['| The method returns | The client receives |', '| --- | --- |', ...rows].join('\n');
}

async function conversions(): Promise<void> {
  const reported: string[] = [];
  const { client, close } = await connectInMemory(createMcpApp(ResultsServer, { onError: (_, info) => reported.push(info.tool) }));
  try {
    for (const [name, expected] of Object.entries(expectedConversions())) {
      expectEqual(json(await client.callTool({ name, arguments: {} })), expected, `${name}() result`);
    }
    expectEqual(reported, ['huge'], 'only the unserialisable value was reported');
  } finally {
    await close();
  }
}

async function helpers(): Promise<void> {
  const { client, close } = await connectInMemory(createMcpApp(ReportsServer));
  try {
    const result = await client.callTool({ name: 'quarterlyReport', arguments: {} });
    expectEqual(json(result.content), JSON.parse(outputs.helpers as string), 'content helpers');
    expectEqual(Object.keys(result), ['content'], 'blocks only');
  } finally {
    await close();
  }
}

async function errors(): Promise<void> {
  const reported: Array<{ tool: string; message: string }> = [];
  const app = createMcpApp(UsersServer, {
    onError: (error, info) => reported.push({ tool: info.tool, message: (error as Error).message }),
  });
  const { client, close } = await connectInMemory(app);
  try {
    // #region client-errors
    const missing = await client.callTool({ name: 'getUser', arguments: { id: '9' } });
    // missing.isError === true: a normal result the model can read and react to

    const refused = await client.callTool({ name: 'deleteUser', arguments: { id: '1' } }).catch((error: unknown) => error);
    // refused instanceof ProtocolError, refused.code === -32001: the request failed, there is no result
    // #endregion
    expectEqual(json(missing), JSON.parse(outputs['tool-error'] as string), 'ToolError result');

    expectEqual(refused instanceof ProtocolError, true, 'McpError arrives as a ProtocolError');
    expectEqual(
      [(refused as ProtocolError).code, (refused as ProtocolError).message],
      [-32001, 'Not authorised for this workspace'],
      'code and message',
    );

    const allowed = await client.callTool({ name: 'deleteUser', arguments: { id: '1' }, _meta: { role: 'admin' } });
    expectEqual(allowed.content, [{ type: 'text', text: 'Deleted user 1' }], 'admin may delete');

    const unexpected = await client.callTool({ name: 'exportUsers', arguments: {} });
    // The error id is random: shown as the guide shows it.
    const shownId = JSON.parse(JSON.stringify(json(unexpected)).replace(/error [0-9a-f]{8}\)/, 'error 5f3a9c1e)')) as unknown;
    expectEqual(shownId, JSON.parse(outputs['unexpected-error'] as string), 'unexpected error result');
    expectEqual(
      reported,
      [{ tool: 'exportUsers', message: 'connection to the user database was lost' }],
      'only the unexpected error is reported',
    );

    const unknown = await client.callTool({ name: 'getUsers', arguments: {} }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expectEqual(
      [(unknown as ProtocolError).code, (unknown as ProtocolError).message],
      [-32602, 'Unknown tool: "getUsers". Available tools: getUser, deleteUser, exportUsers'],
      'unknown tool',
    );
  } finally {
    await close();
  }
}

/** What reaches the client for throws that are not Errors (claims in the page's table). */
async function oddThrows(): Promise<void> {
  @McpServer({ name: 'odd', version: '1.0.0' })
  class OddServer {
    @Tool({ description: 'throws a string' })
    aString() {
      throw 'disk full';
    }
    @Tool({ description: 'throws null' })
    aNull() {
      throw null;
    }
    @Tool({ description: 'throws an object' })
    anObject() {
      throw { code: 'E42' };
    }
  }
  const { client, close } = await connectInMemory(createMcpApp(OddServer, { exposeErrors: true, onError: () => undefined }));
  try {
    const texts: string[] = [];
    for (const name of ['aString', 'aNull', 'anObject']) {
      const result = await client.callTool({ name, arguments: {} });
      texts.push(`${result.isError}:${(result.content as Array<{ text: string }>)[0]?.text}`);
    }
    expectEqual(
      texts,
      [
        'true:disk full',
        'true:the tool failed (it threw null)',
        'true:the tool failed: it threw an object, not an Error; throw an Error or a ToolError with a message',
      ],
      'non-Error throws',
    );
  } finally {
    await close();
  }
}

async function pipelineOptions(): Promise<void> {
  // What onError prints below is collected here, to check that the masked error is still reported.
  const reported: string[] = [];
  const printError = console.error;
  console.error = (...args: unknown[]) => void reported.push(String(args[0]));

  // #region masked
  const app = createMcpApp(UsersServer, {
    // exposeErrors: true would send callers the messages (armature dev and @armature/testing do)
    onError: (error, info) => console.error(`${info.tool} failed (error ${info.errorId}):`, error),
  });
  // #endregion
  const production = await connectInMemory(app);
  try {
    const masked = await production.client.callTool({ name: 'exportUsers', arguments: {} });
    const text = (masked.content as Array<{ text: string }>)[0]?.text ?? '';
    expectEqual(
      [
        masked.isError,
        /^Tool "exportUsers" failed unexpectedly; the error was logged on the server \(request \d+, error [0-9a-f]{8}\)$/.test(text),
      ],
      [true, true],
      `masked message: ${text}`,
    );
    const kept = await production.client.callTool({ name: 'getUser', arguments: { id: '9' } });
    expectEqual(
      (kept.content as Array<{ text: string }>)[0]?.text,
      'No user with id 9. Call list_users to see valid ids.',
      'ToolError kept',
    );
    expectEqual(
      reported.map((line) => line.replace(/[0-9a-f]{8}/, 'ID')),
      ['exportUsers failed (error ID):'],
      'the masked error is still reported, with the id the caller read',
    );
    expectEqual(reported[0]?.includes(text.slice(-9, -1)), true, 'the same error id');
  } finally {
    console.error = printError;
    await production.close();
  }

  @McpServer({ name: 'directory', version: '1.0.0' })
  class DirectoryServer {
    @Tool({ description: 'Count users' })
    countUsers(): number {
      throw new DatabaseError('ECONNRESET 10.0.0.7:5432');
    }
  }
  const filtered = await connectInMemory(createMcpApp(DirectoryServer, { errorFilter, onError: () => undefined }));
  try {
    const result = await filtered.client.callTool({ name: 'countUsers', arguments: {} });
    expectEqual(
      json(result),
      { content: [{ type: 'text', text: 'The user database is unavailable; try again in a minute.' }], isError: true },
      'error filter',
    );
  } finally {
    await filtered.close();
  }

  const guarded = await connectInMemory(
    createMcpApp(UsersServer, { middleware: [requireTenant], exposeErrors: true, onError: () => undefined }),
  );
  try {
    const refused = await guarded.client.callTool({ name: 'getUser', arguments: { id: '1' } }).catch((error: unknown) => error);
    expectEqual(
      [refused instanceof ProtocolError, (refused as ProtocolError).code, (refused as ProtocolError).message],
      [true, -32603, outputs['middleware-error']],
      'middleware error',
    );
    const ok = await guarded.client.callTool({ name: 'getUser', arguments: { id: '1' }, _meta: { tenant: 'acme' } });
    expectEqual(ok.structuredContent, { id: '1', name: 'Ada' }, 'middleware lets it through');
  } finally {
    await guarded.close();
  }

  const slow = createMcpApp(CrawlerServer, { timeoutMs: 100, onError: () => undefined });
  const timed = await connectInMemory(slow);
  try {
    reported.length = 0;
    const result = await timed.client.callTool({ name: 'crawl', arguments: {} });
    expectEqual(
      json(result),
      { content: [{ type: 'text', text: 'Tool "crawl" did not finish within 100 ms and was stopped' }], isError: true },
      'timeout',
    );
    expectEqual([reported, slow.stats.liveScopes], [[], 0], 'a timeout is not reported, and the scope is closed');
  } finally {
    await timed.close();
  }
}

function buildError(): void {
  try {
    createMcpApp(ShippingServer);
  } catch (error) {
    if (!(error instanceof ArmatureBuildError)) throw error;
    expectEqual(error.message, outputs['build-error'], 'build error text');
    expectEqual(error.problems.length, 4, 'every problem listed');
    expectEqual(
      error.problems[0],
      {
        code: 'ARM106',
        where: 'ShippingServer.ship',
        message: 'the tool name "ship parcel" is invalid: a name is 1-128 characters of A-Z a-z 0-9 _ . -',
        fix: "@Tool({ name: 'ship_parcel', ... })",
      },
      'problems are structured',
    );
    return;
  }
  throw new Error('expected an ArmatureBuildError');
}

export async function main(): Promise<void> {
  await conversions();
  await helpers();
  await errors();
  await oddThrows();
  await pipelineOptions();
  buildError();
  expectEqual(CONVERSION_TABLE(), outputs['conversion-table'], 'conversion table');
}
