import { setTimeout as sleep } from 'node:timers/promises';
import {
  Context,
  createMcpApp,
  type ErrorFilter,
  type ExecutionContext,
  type Interceptor,
  McpError,
  McpServer,
  type Middleware,
  Prompt,
  Resource,
  ResourceTemplate,
  Tool,
  ToolError,
  UseInterceptors,
} from '@armature/core';
import type { ProtocolError } from '@modelcontextprotocol/client';
import { IsString } from 'class-validator';
import { Service } from 'typedi';
import { connectInMemory, expectEqual } from './support/check.js';

export const trail: string[] = [];

// #region middleware
/** Runs around every request Armature handles: lists, calls, reads, prompts, completions. */
export const accessLog: Middleware = async (request, next) => {
  const target = request.params?.name ?? request.params?.uri ?? '';
  trail.push(`middleware: ${request.method} ${String(target)}`.trimEnd());
  const result = await next();
  trail.push(`middleware: ${request.method} answered`);
  return result;
};
// #endregion

// #region interceptors
@Service()
export class Metrics {
  readonly calls = new Map<string, number>();

  count(name: string) {
    this.calls.set(name, (this.calls.get(name) ?? 0) + 1);
  }
}

@Service() // a class is resolved through DI for each call, so it can inject services
export class Timing implements Interceptor {
  constructor(private readonly metrics: Metrics) {}

  async intercept(context: ExecutionContext, next: () => Promise<unknown>) {
    trail.push(`timing: before ${context.kind} ${context.name}`);
    try {
      return await next();
    } finally {
      this.metrics.count(context.name);
      trail.push(`timing: after ${context.name}`);
    }
  }
}

/** Answers from memory without calling the method when it has seen the same arguments. */
export class QuoteCache implements Interceptor {
  private readonly quotes = new Map<string, unknown>();

  async intercept(context: ExecutionContext, next: () => Promise<unknown>) {
    const key = JSON.stringify(context.args); // the validated DTO instance
    if (this.quotes.has(key)) return this.quotes.get(key);
    const value = await next();
    this.quotes.set(key, value);
    return value;
  }
}

export class QuoteInput {
  @IsString()
  sku!: string;
}

@UseInterceptors(Timing) // every handler of the class
@McpServer({ name: 'pricing', version: '1.0.0' })
export class PricingServer {
  @UseInterceptors(QuoteCache) // this method only, inside the class interceptors
  @Tool({ description: 'Quote the price of a product' })
  quote(input: QuoteInput) {
    trail.push(`method: quote ${input.sku}`);
    return { sku: input.sku, cents: 1250 };
  }

  @Resource({ uri: 'pricing://currencies', name: 'currencies' })
  currencies() {
    trail.push('method: currencies');
    return 'EUR, USD';
  }
}
// #endregion

// #region app
/** An instance works too: it is used as it is for every call. */
export const audit: Interceptor = {
  async intercept(context, next) {
    trail.push(`audit: ${context.kind} ${context.name} by ${context.principal?.clientId ?? 'anonymous'}`);
    return next();
  },
};

export const app = createMcpApp(PricingServer, {
  middleware: [accessLog], // around every request, first one outermost
  interceptors: [audit], // around every tool, resource and prompt call, outside class and method ones
});
// #endregion

// #region error-filter
export class InventoryUnavailable extends Error {}

/** One place for errors: a known failure becomes something the caller can act on. */
export const inventoryErrors: ErrorFilter = (error, context) => {
  if (error instanceof InventoryUnavailable) {
    return context.kind === 'tool'
      ? new ToolError(`The inventory is unavailable, so ${context.name} cannot answer now. Try again in a minute.`)
      : new McpError(-32010, 'Inventory unavailable');
  }
  return error; // everything else: the default handling
};
// #endregion

// #region timeouts
@McpServer({ name: 'reports', version: '1.0.0' })
export class ReportsServer {
  @Tool({ description: 'Build the yearly report' })
  async yearly(ctx: Context) {
    await sleep(5_000, undefined, { signal: ctx.signal }); // aborted when the time is up
    return 'report';
  }

  @Resource({ uri: 'reports://latest', name: 'latest' })
  async latest(ctx: Context) {
    await sleep(5_000, undefined, { signal: ctx.signal });
    return 'latest report';
  }
}

const reports = createMcpApp(ReportsServer, { timeoutMs: 200 }); // default 60_000; 0 turns it off
// #endregion

export const outputs: Record<string, string> = {
  'call-trail': `middleware: tools/call quote
audit: tool quote by anonymous
timing: before tool quote
method: quote A-1
timing: after quote
middleware: tools/call answered`,
  'cached-trail': `middleware: tools/call quote
audit: tool quote by anonymous
timing: before tool quote
timing: after quote
middleware: tools/call answered`,
  'tool-timeout': 'Tool "yearly" did not finish within 200 ms and was stopped',
  'resource-timeout': 'Resource "reports://latest" did not finish within 200 ms and was stopped',
};

async function pipeline(): Promise<void> {
  const { client, close } = await connectInMemory(app);
  try {
    trail.length = 0;
    const first = await client.callTool({ name: 'quote', arguments: { sku: 'A-1' } });
    expectEqual(trail.join('\n'), outputs['call-trail'], 'the order of a call');
    trail.length = 0;
    const second = await client.callTool({ name: 'quote', arguments: { sku: 'A-1' } });
    expectEqual(trail.join('\n'), outputs['cached-trail'], 'the cache answered');
    expectEqual(second.structuredContent, first.structuredContent, 'same answer');

    trail.length = 0;
    await client.readResource({ uri: 'pricing://currencies' });
    expectEqual(
      trail,
      [
        'middleware: resources/read pricing://currencies',
        'audit: resource pricing://currencies by anonymous',
        'timing: before resource pricing://currencies',
        'method: currencies',
        'timing: after pricing://currencies',
        'middleware: resources/read answered',
      ],
      'resources go through the interceptors too',
    );

    // Which requests middleware sees.
    trail.length = 0;
    await client.ping();
    await client.setLoggingLevel('info');
    await client.listTools();
    await client.listResources();
    await client.callTool({ name: 'quote', arguments: { sku: 42 } }); // invalid: interceptors never run
    expectEqual(
      trail.filter((line) => !line.endsWith('answered')),
      ['middleware: tools/list', 'middleware: resources/list', 'middleware: tools/call quote'],
      'middleware sees Armature requests, not ping or logging/setLevel; invalid arguments stop before the interceptors',
    );
  } finally {
    await close();
  }
}

async function middlewareErrors(): Promise<void> {
  const reported: string[] = [];
  const refuse: Middleware = async (request, next) => {
    if (request.method === 'tools/call' && request.context.meta.tenant === undefined) throw new McpError(-32001, 'no tenant');
    return next();
  };
  for (const production of [false, true]) {
    const { client, close } = await connectInMemory(
      createMcpApp(PricingServer, { middleware: [refuse], exposeErrors: !production, onError: (_, info) => reported.push(info.tool) }),
    );
    try {
      const error = await client.callTool({ name: 'quote', arguments: { sku: 'A-1' } }).catch((e: ProtocolError) => e);
      if (production) {
        expectEqual(
          [
            error.code,
            /^tools\/call middleware failed unexpectedly; the error was logged on the server \(request \d+, error [0-9a-f]{8}\)$/.test(
              String(error.message),
            ),
          ],
          [-32603, true],
          `masked: ${error.message}`,
        );
      } else {
        expectEqual([error.code, error.message], [-32603, 'no tenant'], 'even an McpError from middleware is -32603');
      }
    } finally {
      await close();
    }
  }
  expectEqual(reported, ['middleware (tools/call)', 'middleware (tools/call)'], 'reported to onError');
}

async function errorFilter(): Promise<void> {
  @McpServer({ name: 'inventory', version: '1.0.0' })
  class InventoryServer {
    @Tool({ description: 'Stock of a product' })
    stock(): number {
      throw new InventoryUnavailable('ECONNREFUSED 10.0.0.9:5432');
    }
    @Resource({ uri: 'inventory://all', name: 'all' })
    all(): string {
      throw new InventoryUnavailable('ECONNREFUSED 10.0.0.9:5432');
    }
    @Prompt({ description: 'Restock advice' })
    restock(): string {
      throw new Error('template missing');
    }
  }
  const reported: string[] = [];
  const { client, close } = await connectInMemory(
    createMcpApp(InventoryServer, {
      errorFilter: inventoryErrors,
      exposeErrors: true,
      onError: (error) => reported.push((error as Error).message),
    }),
  );
  try {
    const tool = await client.callTool({ name: 'stock', arguments: {} });
    expectEqual(
      [tool.isError, (tool.content as Array<{ text: string }>)[0]?.text],
      [true, 'The inventory is unavailable, so stock cannot answer now. Try again in a minute.'],
      'tool: a ToolError',
    );
    const read = await client.readResource({ uri: 'inventory://all' }).catch((e: ProtocolError) => e);
    expectEqual([read.code, read.message], [-32010, 'Inventory unavailable'], 'resource: an McpError');
    const prompt = await client.getPrompt({ name: 'restock' }).catch((e: ProtocolError) => e);
    expectEqual([prompt.code, prompt.message], [-32603, 'template missing'], 'kept: the default');
    expectEqual(reported, ['template missing'], 'mapped errors are not reported; the rest is');
  } finally {
    await close();
  }
}

async function timeouts(): Promise<void> {
  const reported: string[] = [];
  const app = createMcpApp(ReportsServer, { timeoutMs: 200, onError: (error) => reported.push(String(error)) });
  const { client, close } = await connectInMemory(app);
  try {
    const started = Date.now();
    const tool = await client.callTool({ name: 'yearly', arguments: {} });
    expectEqual([tool.isError, (tool.content as Array<{ text: string }>)[0]?.text], [true, outputs['tool-timeout']], 'a tool times out');
    const read = await client.readResource({ uri: 'reports://latest' }).catch((e: ProtocolError) => e);
    expectEqual([read.code, read.message], [-32603, outputs['resource-timeout']], 'a resource times out');
    expectEqual(Date.now() - started < 2_000, true, 'stopped early');
    await sleep(20);
    expectEqual([reported, app.stats.liveScopes], [[], 0], 'not reported; scopes closed');
  } finally {
    await close();
  }
  expectEqual(reports.definition.tools.has('yearly'), true, 'the region app builds');
}

/** Page claims: start-up checks, what the filter does not see, production texts, the limit's extent. */
async function details(): Promise<void> {
  @UseInterceptors({ before: () => undefined } as unknown as Interceptor)
  @McpServer({ name: 'broken', version: '1.0.0' })
  class BrokenServer {
    @Tool({ description: 'x' })
    x() {}
  }
  let problem = '';
  try {
    createMcpApp(BrokenServer);
  } catch (error) {
    problem = (error as Error).message;
  }
  expectEqual(problem.includes('the interceptor [object Object] has no intercept method'), true, `start-up: ${problem}`);

  const seen: string[] = [];
  const recording: ErrorFilter = (error) => {
    seen.push((error as Error).message);
    return error;
  };
  const slowMiddleware: Middleware = async (request, next) => {
    if (request.params?.name === 'late') await sleep(300);
    if (request.params?.name === 'mw') throw new Error('middleware failed');
    return next();
  };
  class TemplateParams {
    @IsString()
    id!: string;
  }
  @McpServer({ name: 'details', version: '1.0.0' })
  class DetailsServer {
    @Tool({ description: 'protocol' })
    protocol() {
      throw new McpError(-32011, 'refused');
    }
    @Tool({ description: 'slow' })
    async slow(ctx: Context) {
      await sleep(5_000, undefined, { signal: ctx.signal });
    }
    @Tool({ description: 'fast, behind slow middleware' })
    late() {
      return 'in time';
    }
    @Tool({ description: 'middleware throws' })
    mw() {}
    @Prompt({ description: 'p' })
    failing(): string {
      throw new Error('secret prompt detail');
    }
    @Prompt({ description: 'slow prompt' })
    async slowPrompt(ctx: Context) {
      await sleep(5_000, undefined, { signal: ctx.signal });
      return 'x';
    }
    @ResourceTemplate({ uriTemplate: 'details://{id}', name: 'detail' })
    detail(params: TemplateParams): string {
      throw new Error(`secret template detail ${params.id}`);
    }
  }
  for (const production of [false, true]) {
    const { client, close } = await connectInMemory(
      createMcpApp(DetailsServer, {
        errorFilter: recording,
        middleware: [slowMiddleware],
        timeoutMs: 200,
        exposeErrors: !production,
        onError: () => {},
      }),
    );
    try {
      if (!production) {
        await client.callTool({ name: 'protocol', arguments: {} }).catch(() => undefined);
        await client.callTool({ name: 'slow', arguments: {} });
        await client.callTool({ name: 'mw', arguments: {} }).catch(() => undefined);
        const late = await client.callTool({ name: 'late', arguments: {} });
        expectEqual((late.content as Array<{ text: string }>)[0]?.text, 'in time', 'middleware time does not count');
        const prompt = await client.getPrompt({ name: 'slowPrompt' }).catch((e: ProtocolError) => e.message);
        expectEqual(prompt, 'Prompt "slowPrompt" did not finish within 200 ms and was stopped', 'a prompt times out');
        expectEqual(seen, [], 'the filter saw no McpError, timeout or middleware error');
      } else {
        const prompt = await client.getPrompt({ name: 'failing' }).catch((e: ProtocolError) => e.message);
        const template = await client.readResource({ uri: 'details://7' }).catch((e: ProtocolError) => e.message);
        expectEqual(
          [
            /^Prompt "failing" failed unexpectedly; the error was logged on the server \(request \d+, error [0-9a-f]{8}\)$/.test(
              String(prompt),
            ),
            /^Resource template "detail" failed unexpectedly; /.test(String(template)),
          ],
          [true, true],
          `production texts: ${prompt} / ${template}`,
        );
      }
    } finally {
      await close();
    }
  }
}

export async function main(): Promise<void> {
  await details();
  await pipeline();
  await middlewareErrors();
  await errorFilter();
  await timeouts();
}
