import {
  Complete,
  createMcpApp,
  type Guard,
  type Interceptor,
  McpServer,
  Prompt,
  RequireScopes,
  Resource,
  ResourceTemplate,
  Tool,
  UseGuards,
} from '@armature/core';
import type { ProtocolError } from '@modelcontextprotocol/client';
import { IsInt, IsString, Min } from 'class-validator';
import { Container, Service } from 'typedi';
import { connectInMemory, expectEqual } from './support/check.js';

// #region guard
@Service()
export class Maintenance {
  active = false;
}

@Service() // resolved through DI, so it can inject services
export class NotDuringMaintenance implements Guard {
  constructor(private readonly maintenance: Maintenance) {}

  canActivate() {
    return !this.maintenance.active; // the ExecutionContext (first argument) is not needed here
  }
}

export class OrderInput {
  @IsString()
  sku!: string;

  @IsInt()
  @Min(1)
  quantity!: number;
}

@McpServer({ name: 'shop', version: '1.0.0' })
export class ShopServer {
  @Tool({ description: 'Search the catalogue', annotations: { readOnlyHint: true } })
  search() {
    return ['A-1', 'B-2'];
  }

  @UseGuards(NotDuringMaintenance)
  @Tool({ description: 'Place an order' })
  placeOrder(input: OrderInput) {
    return `Ordered ${input.quantity} x ${input.sku}`;
  }
}
// #endregion

// #region scopes
@McpServer({ name: 'admin', version: '1.0.0' })
export class AdminServer {
  @RequireScopes('shop:admin') // the caller's bearer token must carry every listed scope
  @Tool({ description: 'Refund an order', annotations: { destructiveHint: true } })
  refund() {
    return 'refunded';
  }
}
// #endregion

export const outputs: Record<string, string> = {
  'denied-call': 'Unknown tool: "placeOrder". Available tools: search',
  'hidden-prompt': 'Unknown prompt: "secretPlan". Available prompts: publicPlan',
  'hidden-completion': 'Unknown prompt: "secretPlan"',
  'guard-order': `app guard (list)
class guard (list)
method guard (list)
app guard (call)
class guard (call)
method guard (call)`,
};

async function maintenance(): Promise<void> {
  const app = createMcpApp(ShopServer);
  const { client, close } = await connectInMemory(app);
  const state = Container.get(Maintenance);
  try {
    const before = (await client.listTools()).tools.map((t) => t.name);
    expectEqual(before, ['search', 'placeOrder'], 'open: both tools');
    // #region denied
    Container.get(Maintenance).active = true; // the service the guard reads
    const { tools } = await client.listTools(); // placeOrder is not listed
    const call = client.callTool({ name: 'placeOrder', arguments: { sku: 'A-1', quantity: 1 } });
    const denied = await call.catch((error: ProtocolError) => error);
    // denied.code === -32602, exactly as for a tool that does not exist
    // #endregion
    expectEqual(
      tools.map((t) => t.name),
      ['search'],
      'hidden',
    );
    expectEqual([denied.code, denied.message], [-32602, outputs['denied-call']], 'answered like an unknown tool');
    const invalid = await client
      .callTool({ name: 'placeOrder', arguments: { sku: 'A-1', quantity: 'many' } })
      .catch((error: ProtocolError) => error.message);
    expectEqual(invalid, outputs['denied-call'], 'guards run before validation: nothing about the arguments leaks');
    state.active = false;
    const placed = await client.callTool({ name: 'placeOrder', arguments: { sku: 'A-1', quantity: 2 } });
    expectEqual((placed.content as Array<{ text: string }>)[0]?.text, 'Ordered 2 x A-1', 'open again');
  } finally {
    state.active = false;
    await close();
  }
}

class PageParams {
  @IsString()
  slug!: string;
}

/** A second server: resources, templates and prompts under the app's guards. */
@McpServer({ name: 'docs', version: '1.0.0' })
export class DocsServer {
  @Resource({ uri: 'docs://handbook', name: 'handbook' })
  handbook() {
    return 'handbook';
  }
  @Prompt({ description: 'Write a product description' })
  describe() {
    return 'Describe the product.';
  }
  @ResourceTemplate({ uriTemplate: 'docs://pages/{slug}', name: 'page' })
  page(params: PageParams) {
    return params.slug;
  }
}

async function everyKind(): Promise<void> {
  // #region app-guards
  const app = createMcpApp([ShopServer, DocsServer], { guards: [NotDuringMaintenance] }); // every tool, resource and prompt
  // #endregion
  const { client, close } = await connectInMemory(app);
  const state = Container.get(Maintenance);
  try {
    state.active = true;
    expectEqual(
      [
        (await client.listTools()).tools,
        (await client.listResources()).resources,
        (await client.listResourceTemplates()).resourceTemplates,
        (await client.listPrompts()).prompts,
      ],
      [[], [], [], []],
      'an app guard hides every kind',
    );
    const page = await client.readResource({ uri: 'docs://pages/intro' }).catch((error: ProtocolError) => error);
    expectEqual([page.code, page.message], [-32602, 'Resource not found: docs://pages/intro'], 'a template answers not found');
    const read = await client.readResource({ uri: 'docs://handbook' }).catch((error: ProtocolError) => error);
    expectEqual([read.code, read.message], [-32602, 'Resource not found: docs://handbook'], 'a resource answers not found');
    const prompt = await client.getPrompt({ name: 'describe' }).catch((error: ProtocolError) => error);
    expectEqual(
      [prompt.code, prompt.message],
      [-32602, 'Unknown prompt: "describe". Available prompts: none'],
      'a prompt answers unknown, and the message names no prompt the caller cannot see',
    );
    const complete = (ref: { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string }) =>
      client.complete({ ref, argument: { name: 'slug', value: '' } }).catch((error: ProtocolError) => [error.code, error.message]);
    expectEqual(
      [
        await complete({ type: 'ref/prompt', name: 'describe' }),
        await complete({ type: 'ref/resource', uri: 'docs://handbook' }),
        await complete({ type: 'ref/resource', uri: 'docs://pages/{slug}' }),
      ],
      [
        [-32602, 'Unknown prompt: "describe"'],
        [-32602, 'Resource not found: docs://handbook'],
        [-32602, 'Resource not found: docs://pages/{slug}'],
      ],
      'completion/complete is refused for every kind',
    );
  } finally {
    state.active = false;
    await close();
  }
}

async function order(): Promise<void> {
  const seen: string[] = [];
  const recording = (label: string): Guard => ({
    canActivate(context) {
      seen.push(`${label} (${context.phase})`);
      if (context.args !== undefined) throw new Error('guards see no arguments');
      return true;
    },
  });
  const interceptorRuns: string[] = [];
  const counting: Interceptor = {
    async intercept(context, next) {
      interceptorRuns.push(context.name);
      return next();
    },
  };
  @UseGuards(recording('class guard'))
  @McpServer({ name: 'ordered', version: '1.0.0' })
  class OrderedServer {
    @UseGuards(recording('method guard'))
    @Tool({ description: 'x' })
    x(input: OrderInput) {
      return input.sku;
    }
  }
  const { client, close } = await connectInMemory(
    createMcpApp(OrderedServer, { guards: [recording('app guard')], interceptors: [counting] }),
  );
  try {
    await client.listTools();
    await client.callTool({ name: 'x', arguments: { sku: 'A', quantity: 1 } });
    expectEqual(seen.join('\n'), outputs['guard-order'], 'app, class, method; list then call');
  } finally {
    await close();
  }

  // The first "no" stops the rest, and interceptors never run for a refused call.
  seen.length = 0;
  interceptorRuns.length = 0;
  const no: Guard = {
    canActivate: () => {
      seen.push('no');
      return false;
    },
  };
  @UseGuards(no, recording('after no'))
  @McpServer({ name: 'refused', version: '1.0.0' })
  class RefusedServer {
    @Tool({ description: 'y' })
    y() {
      return 'y';
    }
  }
  const refused = await connectInMemory(createMcpApp(RefusedServer, { interceptors: [counting] }));
  try {
    await refused.client.callTool({ name: 'y', arguments: {} }).catch(() => undefined);
    // 'no' twice: the call, then the list of available tools in the error message.
    expectEqual([seen, interceptorRuns], [['no', 'no'], []], 'stopped at the first no');
  } finally {
    await refused.close();
  }

  @UseGuards({ allow: () => true } as unknown as Guard)
  @McpServer({ name: 'broken', version: '1.0.0' })
  class BrokenServer {
    @Tool({ description: 'z' })
    z() {}
  }
  let problem = '';
  try {
    createMcpApp(BrokenServer);
  } catch (error) {
    problem = (error as Error).message;
  }
  expectEqual(problem.includes('the guard [object Object] has no canActivate method'), true, `start-up: ${problem}`);
}

class PlainGuard implements Guard {
  static constructed = 0;
  constructor() {
    PlainGuard.constructed++;
  }
  canActivate() {
    return true;
  }
}

async function scopes(): Promise<void> {
  // A class the container does not know is constructed once; scopes are checked before guards.
  const ran: string[] = [];
  @McpServer({ name: 'plain', version: '1.0.0' })
  class PlainServer {
    @UseGuards(PlainGuard)
    @Tool({ description: 'a' })
    a() {
      return 'a';
    }
    @RequireScopes('x:y')
    @UseGuards({
      canActivate: () => {
        ran.push('guard');
        return true;
      },
    })
    @Tool({ description: 'b' })
    b() {
      return 'b';
    }
  }
  const plain = await connectInMemory(createMcpApp(PlainServer));
  try {
    for (let i = 0; i < 3; i++) await plain.client.callTool({ name: 'a', arguments: {} });
    await plain.client.callTool({ name: 'b', arguments: {} }).catch(() => undefined);
    expectEqual([PlainGuard.constructed, ran], [1, []], 'constructed once; the guard after a missing scope never ran');
  } finally {
    await plain.close();
  }

  // Without an authenticated caller (stdio, in memory, HTTP without auth) nobody holds a scope.
  const { client, close } = await connectInMemory(createMcpApp(AdminServer));
  try {
    expectEqual((await client.listTools()).tools, [], 'hidden without a principal');
    const call = await client.callTool({ name: 'refund', arguments: {} }).catch((error: ProtocolError) => error.message);
    expectEqual(call, 'Unknown tool: "refund". Available tools: none', 'refused without a principal');
  } finally {
    await close();
  }
}

async function hiddenPrompts(): Promise<void> {
  class TopicArgs {
    @Complete(() => ['internal-roadmap'])
    @IsString()
    topic!: string;
  }
  const phases: string[] = [];
  const never: Guard = {
    canActivate(context) {
      phases.push(`${context.kind} ${context.name} (${context.phase})`);
      return false;
    },
  };
  @McpServer({ name: 'hidden', version: '1.0.0' })
  class HiddenServer {
    @UseGuards(never)
    @Prompt({ description: 'Hidden' })
    secretPlan(args: TopicArgs) {
      return args.topic;
    }
    @RequireScopes('plans:read')
    @Prompt({ description: 'Needs a scope' })
    scopedPlan(args: TopicArgs) {
      return args.topic;
    }
    @Prompt({ description: 'Open to all' })
    publicPlan(args: TopicArgs) {
      return args.topic;
    }
    @UseGuards(never)
    @ResourceTemplate({ uriTemplate: 'plans://{topic}', name: 'plan' })
    plan(params: TopicArgs) {
      return params.topic;
    }
  }
  const app = createMcpApp(HiddenServer);
  const { client, close } = await connectInMemory(app);
  const failure = (error: ProtocolError) => [error.code, error.message];
  try {
    expectEqual(
      (await client.listPrompts()).prompts.map((p) => p.name),
      ['publicPlan'],
      'only the open prompt is listed',
    );
    phases.length = 0;
    const got = await client.getPrompt({ name: 'secretPlan', arguments: { topic: 'x' } }).catch(failure);
    expectEqual(got, [-32602, outputs['hidden-prompt']], 'the message names only the prompts the caller may see');
    expectEqual(phases, ['prompt secretPlan (call)', 'prompt secretPlan (list)'], 'the call, then the list for the message');

    // completion/complete runs the same guards and scopes (phase 'call'): a hidden prompt is unknown.
    phases.length = 0;
    const complete = (ref: { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string }) =>
      client.complete({ ref, argument: { name: 'topic', value: '' } }).then((r) => r.completion.values, failure);
    expectEqual(await complete({ type: 'ref/prompt', name: 'secretPlan' }), [-32602, outputs['hidden-completion']], 'guarded prompt');
    expectEqual(phases, ['prompt secretPlan (call)'], 'completion runs the guards with phase call');
    expectEqual(
      await complete({ type: 'ref/prompt', name: 'scopedPlan' }),
      [-32602, 'Unknown prompt: "scopedPlan"'],
      '@RequireScopes without a principal',
    );
    expectEqual(
      await complete({ type: 'ref/resource', uri: 'plans://{topic}' }),
      [-32602, 'Resource not found: plans://{topic}'],
      'guarded template',
    );
    expectEqual(await complete({ type: 'ref/prompt', name: 'publicPlan' }), ['internal-roadmap'], 'an open prompt completes');
    app.prompts.disable('publicPlan');
    const none = await client.getPrompt({ name: 'publicPlan', arguments: { topic: 'x' } }).catch(failure);
    expectEqual(none, [-32602, 'Unknown prompt: "publicPlan". Available prompts: none'], 'nothing visible: none');
    expectEqual(
      await complete({ type: 'ref/prompt', name: 'publicPlan' }),
      [-32602, 'Unknown prompt: "publicPlan"'],
      'disabled: no completions',
    );
  } finally {
    await close();
  }
}

export async function main(): Promise<void> {
  await maintenance();
  await everyKind();
  await order();
  await scopes();
  await hiddenPrompts();
}
