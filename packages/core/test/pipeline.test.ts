import { IsInt, IsString } from 'class-validator';
import { Service } from 'typedi';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  Complete,
  Context,
  createMcpApp,
  type ExecutionContext,
  type Guard,
  type Interceptor,
  McpError,
  McpServer,
  type Middleware,
  Prompt,
  Resource,
  Tool,
  ToolError,
  UseGuards,
  UseInterceptors,
} from '../src/index.js';
import { type Connected, connectInMemory } from './support/clients.js';

const trail: string[] = [];

class NoSecrets implements Guard {
  canActivate(context: ExecutionContext) {
    trail.push(`guard ${context.phase} ${context.name}`);
    return context.context.meta.role === 'admin';
  }
}

@Service()
class Recorder implements Interceptor {
  async intercept(context: ExecutionContext, next: () => Promise<unknown>) {
    trail.push(`before ${context.name} args=${JSON.stringify(context.args)}`);
    const value = await next();
    trail.push(`after ${context.name}`);
    return value;
  }
}

const Upper: Interceptor = {
  async intercept(_context, next) {
    const value = await next();
    return typeof value === 'string' ? value.toUpperCase() : value;
  },
};

class Echo {
  @IsString()
  text!: string;
}

class Slow {
  @IsInt()
  ms!: number;
}

@UseInterceptors(Recorder)
@McpServer({ name: 'pipeline', version: '1.0.0' })
class PipelineServer {
  @UseInterceptors(Upper)
  @Tool({ description: 'echo' })
  echo(input: Echo) {
    trail.push('handler echo');
    return input.text;
  }

  @UseGuards(NoSecrets)
  @Tool({ description: 'secret' })
  secret() {
    return 'the secret';
  }

  @UseGuards(NoSecrets)
  @Resource({ uri: 'secret://doc', name: 'secret-doc' })
  secretDoc() {
    return 'classified';
  }

  @UseGuards(NoSecrets)
  @Prompt({ description: 'secret prompt' })
  secret_prompt() {
    return 'psst';
  }

  @Tool({ description: 'waits' })
  async slow(input: Slow, ctx: Context) {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, input.ms);
      ctx.signal.addEventListener('abort', () => {
        trail.push(`aborted: ${String((ctx.signal.reason as Error)?.name)}`);
        clearTimeout(timer);
        resolve();
      });
    });
    return 'done';
  }

  @Tool({ description: 'fails unexpectedly' })
  crash() {
    throw new Error('connection string postgres://admin:hunter2@db failed');
  }

  @Tool({ description: 'fails on purpose' })
  refuse() {
    throw new ToolError('quota exceeded');
  }

  @Tool({ description: 'domain error' })
  missing() {
    throw new RangeError('no such order');
  }
}

let connection: Connected | undefined;
afterEach(async () => {
  await connection?.close();
  connection = undefined;
  trail.length = 0;
});

const textOf = (r: { content?: unknown }) => (r.content as Array<{ text: string }>)[0]?.text;

describe('interceptors', () => {
  it('wrap the call, class interceptors outside method ones, and may change the value', async () => {
    connection = await connectInMemory(createMcpApp(PipelineServer, { onError: () => undefined }));
    const result = await connection.client.callTool({ name: 'echo', arguments: { text: 'hi' } });
    expect(textOf(result)).toBe('HI');
    expect(trail).toEqual(['before echo args={"text":"hi"}', 'handler echo', 'after echo']);
  });

  it('app-level interceptors run outermost', async () => {
    const outer: Interceptor = {
      async intercept(context, next) {
        trail.push(`app before ${context.name}`);
        return next();
      },
    };
    connection = await connectInMemory(createMcpApp(PipelineServer, { interceptors: [outer] }));
    await connection.client.callTool({ name: 'echo', arguments: { text: 'x' } });
    expect(trail[0]).toBe('app before echo');
  });

  it('next(args) hands the inner interceptors and the method other arguments', async () => {
    const trim: Interceptor = {
      intercept(context, next) {
        const input = context.args as Echo;
        return next(Object.assign(new Echo(), { text: input.text.trim() }));
      },
    };
    connection = await connectInMemory(createMcpApp(PipelineServer, { interceptors: [trim] }));
    const result = await connection.client.callTool({ name: 'echo', arguments: { text: '  padded  ' } });
    // Recorder (class level) sees the trimmed input, and Upper (method level) the method's value.
    expect(textOf(result)).toBe('PADDED');
    expect(trail).toEqual(['before echo args={"text":"padded"}', 'handler echo', 'after echo']);
  });
});

describe('guards', () => {
  it('hide what the caller may not use and answer its calls like unknown ones', async () => {
    connection = await connectInMemory(createMcpApp(PipelineServer, { onError: () => undefined }));
    const c = connection.client;
    expect((await c.listTools()).tools.map((t) => t.name)).not.toContain('secret');
    expect((await c.listResources()).resources).toEqual([]);
    expect((await c.listPrompts()).prompts).toEqual([]);
    await expect(c.callTool({ name: 'secret', arguments: {} })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('Unknown tool: "secret"'),
    });
    await expect(c.readResource({ uri: 'secret://doc' })).rejects.toThrow(/Resource not found/);
    await expect(c.getPrompt({ name: 'secret_prompt' })).rejects.toMatchObject({ code: -32602 });
    expect(trail).toContain('guard list secret');
    expect(trail).toContain('guard call secret');
  });

  it('let the caller through when they allow it', async () => {
    connection = await connectInMemory(createMcpApp(PipelineServer));
    const c = connection.client;
    const admin = { _meta: { role: 'admin' } };
    expect((await c.listTools(admin)).tools.map((t) => t.name)).toContain('secret');
    expect(textOf(await c.callTool({ name: 'secret', arguments: {}, ...admin }))).toBe('the secret');
    expect((await c.readResource({ uri: 'secret://doc', ...admin })).contents[0]).toMatchObject({ text: 'classified' });
  });
});

describe('timeout', () => {
  it('stops a call that runs too long: signal aborted, client answered, scope disposed', async () => {
    const app = createMcpApp(PipelineServer, { timeoutMs: 100 });
    connection = await connectInMemory(app);
    // The answer says it came from the timeout: the handler itself would answer 'done' after 10 s.
    const result = await connection.client.callTool({ name: 'slow', arguments: { ms: 10_000 } });
    expect(result).toEqual({
      content: [{ type: 'text', text: 'Tool "slow" did not finish within 100 ms and was stopped' }],
      isError: true,
    });
    await vi.waitFor(
      () => {
        expect(trail).toContain('aborted: CallTimeoutError');
        expect(app.stats.liveScopes).toBe(0);
      },
      { timeout: 5_000 },
    );
    expect(textOf(await connection.client.callTool({ name: 'slow', arguments: { ms: 1 } }))).toBe('done');
  });
});

describe('errors: masked unless exposeErrors, and the error filter', () => {
  it('masks unexpected messages by default but keeps ToolError and McpError ones', async () => {
    const logged: unknown[] = [];
    connection = await connectInMemory(createMcpApp(PipelineServer, { onError: (e) => logged.push(e) }));
    const crash = await connection.client.callTool({ name: 'crash', arguments: {} });
    expect(textOf(crash)).toMatch(
      /^Tool "crash" failed unexpectedly; the error was logged on the server \(request \d+, error [0-9a-f]{8}\)$/,
    );
    expect(textOf(crash)).not.toContain('hunter2');
    expect(logged).toHaveLength(1);
    expect(textOf(await connection.client.callTool({ name: 'refuse', arguments: {} }))).toBe('quota exceeded');
  });

  it('names an error id the server log carries with the full error, so an operator finds what the caller was not shown', async () => {
    const lines: string[] = [];
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
      lines.push(String(chunk));
      return true;
    });
    try {
      connection = await connectInMemory(createMcpApp(PipelineServer, { logger: 'json' }));
      const text = textOf(await connection.client.callTool({ name: 'crash', arguments: {} })) ?? '';
      const errorId = /error ([0-9a-f]{8})\)$/.exec(text)?.[1];
      expect(errorId).toBeDefined();
      const record = lines.map((line) => JSON.parse(line) as Record<string, unknown>).find((r) => r.event === 'call-failed');
      expect(record).toMatchObject({ errorId, what: 'crash', err: { message: 'connection string postgres://admin:hunter2@db failed' } });
    } finally {
      spy.mockRestore();
    }
  });

  it('sends the message as it is with exposeErrors (or ARMATURE_EXPOSE_ERRORS=1, what armature dev sets); NODE_ENV plays no part', async () => {
    const raw = 'connection string postgres://admin:hunter2@db failed';
    const crashText = async (options: Parameters<typeof createMcpApp>[1]) => {
      connection = await connectInMemory(createMcpApp(PipelineServer, { onError: () => undefined, ...options }));
      const text = textOf(await connection.client.callTool({ name: 'crash', arguments: {} }));
      await connection.close();
      connection = undefined;
      return text;
    };
    expect(await crashText({ exposeErrors: true })).toBe(raw);
    vi.stubEnv('NODE_ENV', 'development');
    try {
      expect(await crashText({})).toMatch(/^Tool "crash" failed unexpectedly/);
      vi.stubEnv('ARMATURE_EXPOSE_ERRORS', '1');
      expect(await crashText({})).toBe(raw);
      // The option the app sets wins over the environment.
      expect(await crashText({ exposeErrors: false })).toMatch(/^Tool "crash" failed unexpectedly/);
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('the error filter maps errors in one place', async () => {
    const filter = (error: unknown, context: ExecutionContext) => {
      if (error instanceof RangeError) return new ToolError(`${context.name}: ${error.message}. Call list_orders first.`);
      if (error instanceof Error && error.message.includes('postgres')) return new McpError(-32050, 'Database unavailable');
      return error;
    };
    connection = await connectInMemory(createMcpApp(PipelineServer, { errorFilter: filter }));
    expect(textOf(await connection.client.callTool({ name: 'missing', arguments: {} }))).toBe(
      'missing: no such order. Call list_orders first.',
    );
    await expect(connection.client.callTool({ name: 'crash', arguments: {} })).rejects.toMatchObject({ code: -32050 });
  });
});

describe('middleware', () => {
  it('runs around every request, in order', async () => {
    const seen: string[] = [];
    const first: Middleware = async (request, next) => {
      seen.push(`1> ${request.method}`);
      const value = await next();
      seen.push(`1< ${request.method}`);
      return value;
    };
    const second: Middleware = async (request, next) => {
      seen.push(`2> ${request.method} ${String(request.params?.name ?? '')}`);
      return next();
    };
    connection = await connectInMemory(createMcpApp(PipelineServer, { middleware: [first, second] }));
    await connection.client.callTool({ name: 'echo', arguments: { text: 'x' } });
    expect(seen).toEqual(['1> tools/call', '2> tools/call echo', '1< tools/call']);
  });

  it('hands middleware, guards and the handler one and the same Context', async () => {
    const seen: Context[] = [];
    const capture: Middleware = async (request, next) => {
      seen.push(request.context);
      return next();
    };
    const sameGuard: Guard = {
      canActivate(context) {
        seen.push(context.context);
        return true;
      },
    };
    @McpServer({ name: 'same-context', version: '1' })
    class SameContext {
      @Tool({ description: 'd' })
      who(ctx: Context) {
        seen.push(ctx);
        return 'ok';
      }
    }
    connection = await connectInMemory(createMcpApp(SameContext, { middleware: [capture], guards: [sameGuard] }));
    await connection.client.callTool({ name: 'who', arguments: {} });
    expect(seen).toHaveLength(3);
    expect(new Set(seen).size).toBe(1);
  });

  it('an exception from middleware is JSON-RPC -32603, logged with the request id; a tool failure stays a tool result', async () => {
    const logged: Array<{ tool: string; requestId: unknown }> = [];
    const broken: Middleware = async (request, next) => {
      if (request.params?.name === 'echo') throw new Error('rate limiter down');
      return next();
    };
    connection = await connectInMemory(
      createMcpApp(PipelineServer, { middleware: [broken], exposeErrors: true, onError: (_e, info) => logged.push(info) }),
    );
    await expect(connection.client.callTool({ name: 'echo', arguments: { text: 'x' } })).rejects.toMatchObject({
      code: -32603,
      message: expect.stringContaining('rate limiter down'),
    });
    expect(logged).toEqual([
      { tool: 'middleware (tools/call)', requestId: expect.any(Number), errorId: expect.stringMatching(/^[0-9a-f]{8}$/) },
    ]);
    const crash = await connection.client.callTool({ name: 'crash', arguments: {} });
    expect(crash.isError).toBe(true);
  });
});

describe('guards cover completions and messages too', () => {
  it('a hidden prompt is neither completed nor named in the unknown-prompt message', async () => {
    class Topic {
      @Complete(() => ['internal-roadmap'])
      @IsString()
      topic!: string;
    }
    @McpServer({ name: 'hidden-prompts', version: '1' })
    class HiddenPrompts {
      @UseGuards(NoSecrets)
      @Prompt({ description: 'secret plan' })
      secretPlan(args: Topic) {
        return args.topic;
      }
      @Prompt({ description: 'public' })
      hello() {
        return 'hi';
      }
    }
    connection = await connectInMemory(createMcpApp(HiddenPrompts));
    await expect(
      connection.client.complete({ ref: { type: 'ref/prompt', name: 'secretPlan' }, argument: { name: 'topic', value: '' } }),
    ).rejects.toMatchObject({ code: -32602 });
    await expect(connection.client.getPrompt({ name: 'secretPlan', arguments: { topic: 'x' } })).rejects.toMatchObject({
      message: expect.stringContaining('Unknown prompt: "secretPlan". Available prompts: hello'),
    });
  });
});
