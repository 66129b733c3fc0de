import type { AddressInfo } from 'node:net';
import { Context, McpServer, Prompt, Resource, Tool } from '@armature/core';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  Body,
  type CallHandler,
  type CanActivate,
  Controller,
  type ExecutionContext,
  Get,
  type INestApplication,
  Inject,
  Injectable,
  Module,
  type NestInterceptor,
  NotFoundException,
  Post,
  Scope,
  SetMetadata,
  UseGuards,
  UseInterceptors,
} from '@nestjs/common';
import { APP_GUARD, NestFactory, Reflector } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { IsInt, IsString, Max, Min, MinLength } from 'class-validator';
import { map, type Observable } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ArmatureModule,
  ArmatureValidationPipe,
  isMcpRequest,
  MCP_CONTEXT,
  type McpCall,
  type McpRequest,
  mcpCallOf,
} from '../src/index.js';

class CreateNoteInput {
  @IsString()
  @MinLength(3)
  title!: string;

  @IsInt()
  @Min(1)
  @Max(5)
  priority!: number;
}

const Secret = () => SetMetadata('secret', true);

/** Denies handlers marked @Secret(), on REST and MCP alike; records the context types it saw. */
@Injectable()
class SecretGuard implements CanActivate {
  static seen: string[] = [];
  constructor(private readonly reflector: Reflector) {}
  canActivate(context: ExecutionContext): boolean {
    SecretGuard.seen.push(context.getType());
    return !this.reflector.getAllAndOverride<boolean>('secret', [context.getHandler(), context.getClass()]);
  }
}

/** Lets MCP callers with an `admin` principal through; nobody in these tests has one. */
@Injectable()
class AdminOnly implements CanActivate {
  static calls: McpCall[] = [];
  canActivate(context: ExecutionContext): boolean {
    const call = mcpCallOf(context.switchToHttp().getRequest()) as McpCall;
    AdminOnly.calls.push(call);
    return call.principal?.extra?.role === 'admin';
  }
}

/** Request-scoped guard: built per MCP call in the call's Nest context, where it sees the McpRequest. */
@Injectable({ scope: Scope.REQUEST })
class ReadOnlyHours implements CanActivate {
  static built = 0;
  constructor(@Inject('REQUEST') private readonly request: McpRequest) {
    ReadOnlyHours.built++;
  }
  canActivate(context: ExecutionContext): boolean {
    return isMcpRequest(this.request) && context.switchToHttp().getRequest<McpRequest>().mcp?.kind === 'resource';
  }
}

/** A Nest interceptor: sees the validated arguments and maps the method's result. */
@Injectable()
class Shout implements NestInterceptor {
  static seen: unknown[] = [];
  intercept(context: ExecutionContext, next: CallHandler): Observable<string> {
    Shout.seen.push(context.switchToRpc().getData());
    return next.handle().pipe(map((value) => String(value).toUpperCase()));
  }
}

let repositories = 0;

@Injectable({ scope: Scope.REQUEST })
class NotesRepository {
  readonly serial = ++repositories;
  constructor(
    @Inject(MCP_CONTEXT) readonly ctx: Context | undefined,
    @Inject('REQUEST') readonly request: McpRequest | { method: string },
  ) {}

  save(input: CreateNoteInput): string {
    const via = isMcpRequest(this.request) ? `mcp request ${String(this.ctx?.requestId)}` : `http ${this.request.method}`;
    return `saved "${input.title}" (p${input.priority}) in repository #${this.serial} via ${via}`;
  }
}

@McpServer({ name: 'notes', version: '1.0.0' })
@Injectable()
class NotesServer {
  constructor(private readonly repository: NotesRepository) {}

  @Tool({ description: 'Adds a note' })
  add_note(input: CreateNoteInput) {
    return this.repository.save(input);
  }

  @Secret()
  @Tool({ description: 'Never reachable' })
  secret_note() {
    return 'leaked';
  }

  @UseGuards(AdminOnly)
  @Tool({ description: 'Admins only' })
  purge() {
    return 'purged';
  }

  @UseInterceptors(Shout)
  @Tool({ description: 'Echoes a note title, through a Nest interceptor' })
  shout(input: CreateNoteInput) {
    return `${input.title}!`;
  }

  @Tool({ description: 'Finds a note, or throws NotFoundException' })
  find_note() {
    throw new NotFoundException('note 3 not found');
  }

  @Tool({ description: 'Takes a while' })
  async slow(ctx: Context) {
    await new Promise((resolve) => setTimeout(resolve, 400));
    return ctx.signal.aborted ? 'aborted' : 'finished';
  }

  @UseGuards(ReadOnlyHours)
  @Resource({ uri: 'notes://count', name: 'note-count', mimeType: 'text/plain' })
  count_resource() {
    return `repository #${this.repository.serial}`;
  }

  @Prompt({ description: 'Summarise the notes' })
  summarise(ctx: Context) {
    return `Summarise the notes (repository #${this.repository.serial}, request ${String(ctx.requestId)})`;
  }
}

@Controller('notes')
class NotesController {
  constructor(private readonly repository: NotesRepository) {}

  @Post()
  create(@Body() input: CreateNoteInput) {
    return { note: this.repository.save(input) };
  }

  @Secret()
  @Get('secret')
  secret() {
    return 'leaked';
  }
}

@Module({ providers: [NotesRepository, NotesServer], controllers: [NotesController] })
class NotesModule {}

let counts = 0;

@Injectable()
class CounterService {
  next(): number {
    return ++counts;
  }
}

@McpServer({ name: 'counter', version: '1.0.0' })
@Injectable()
class CounterServer {
  static instances = 0;
  constructor(private readonly counter: CounterService) {
    CounterServer.instances++;
  }

  @Tool({ description: 'Counts calls' })
  count() {
    return `call ${this.counter.next()}`;
  }
}

@Module({ providers: [CounterService, CounterServer] })
class CounterModule {}

@Injectable({ scope: Scope.REQUEST })
class FlakyDatabase {
  constructor() {
    throw new Error('connect ECONNREFUSED postgres://admin:hunter2@db.internal:5432/prod');
  }
}

@McpServer({ name: 'reports', version: '1.0.0' })
@Injectable()
class ReportsServer {
  constructor(private readonly db: FlakyDatabase) {}

  @Tool({ description: 'Needs the database' })
  report() {
    return String(this.db);
  }
}

@Module({ providers: [FlakyDatabase, ReportsServer] })
class ReportsModule {}

const reported: string[] = [];

@Module({
  imports: [
    ArmatureModule.forRoot({
      http: { path: '/mcp' },
      shutdownDeadlineMs: 2_000,
      onError: (error, { tool }) => reported.push(`${tool}: ${(error as Error).message}`),
    }),
    NotesModule,
    CounterModule,
    ReportsModule,
  ],
  providers: [{ provide: APP_GUARD, useClass: SecretGuard }],
})
class AppModule {}

type ToolResult = { content: Array<{ type: string; text: string }>; isError?: boolean };

async function connect(url: string, modern: boolean): Promise<Client> {
  const client = new Client({ name: 'nest-e2e', version: '1' }, modern ? { versionNegotiation: { mode: 'auto' } } : {});
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolResult> {
  return (await client.callTool({ name, arguments: args })) as ToolResult;
}

describe.each(['express', 'fastify'] as const)('a Nest app on %s serving MCP and REST on one port', (platform) => {
  let app: INestApplication;
  let base: string;
  let counterServers: number;

  beforeAll(async () => {
    const before = CounterServer.instances;
    app =
      platform === 'express'
        ? await NestFactory.create(AppModule, { logger: false })
        : await NestFactory.create(AppModule, new FastifyAdapter(), { logger: false });
    counterServers = CounterServer.instances;
    expect(counterServers - before).toBe(1);
    app.useGlobalPipes(new ArmatureValidationPipe());
    await app.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await app?.close();
  });

  for (const modern of [false, true]) {
    const revision = modern ? '2026-07-28' : '2025-11-25';

    describe(`over HTTP, ${revision}`, () => {
      it('negotiates the revision and lists the tools the guards let through', async () => {
        const client = await connect(`${base}/mcp`, modern);
        try {
          expect(client.getNegotiatedProtocolVersion()).toBe(revision);
          const { tools } = await client.listTools();
          expect(tools.map((tool) => tool.name).sort()).toEqual(['add_note', 'count', 'find_note', 'report', 'shout', 'slow']);
        } finally {
          await client.close();
        }
      });

      it('builds the request-scoped repository per call, with the Context and an MCP REQUEST', async () => {
        const client = await connect(`${base}/mcp`, modern);
        try {
          const first = await call(client, 'add_note', { title: 'milk', priority: 2 });
          const second = await call(client, 'add_note', { title: 'eggs', priority: 3 });
          const [a, b] = [first.content[0]?.text, second.content[0]?.text];
          expect(a).toMatch(/^saved "milk" \(p2\) in repository #(\d+) via mcp request \S+$/);
          expect(b).toMatch(/^saved "eggs" \(p3\) in repository #(\d+) via mcp request \S+$/);
          expect(a?.match(/#(\d+)/)?.[1]).not.toBe(b?.match(/#(\d+)/)?.[1]);
          expect(a).not.toContain('via mcp request undefined');
        } finally {
          await client.close();
        }
      });

      it('serves resources (behind a request-scoped Nest guard) and prompts from the same provider', async () => {
        const client = await connect(`${base}/mcp`, modern);
        try {
          const before = ReadOnlyHours.built;
          const { resources } = await client.listResources();
          expect(resources.map((resource) => resource.uri)).toEqual(['notes://count']);
          const read = await client.readResource({ uri: 'notes://count' });
          expect(read.contents).toEqual([
            { uri: 'notes://count', mimeType: 'text/plain', text: expect.stringMatching(/^repository #\d+$/) },
          ]);
          expect(ReadOnlyHours.built - before).toBe(2);
          const { prompts } = await client.listPrompts();
          expect(prompts.map((prompt) => prompt.name)).toEqual(['summarise']);
          const prompt = await client.getPrompt({ name: 'summarise' });
          expect(prompt.messages).toEqual([
            {
              role: 'user',
              content: { type: 'text', text: expect.stringMatching(/^Summarise the notes \(repository #\d+, request \S+\)$/) },
            },
          ]);
        } finally {
          await client.close();
        }
      });

      it('runs Nest interceptors around the call, with the validated arguments', async () => {
        const client = await connect(`${base}/mcp`, modern);
        try {
          Shout.seen = [];
          const result = await call(client, 'shout', { title: 'hello', priority: 1 });
          expect(result.content).toEqual([{ type: 'text', text: 'HELLO!' }]);
          expect(Shout.seen).toEqual([Object.assign(new CreateNoteInput(), { title: 'hello', priority: 1 })]);
        } finally {
          await client.close();
        }
      });

      it("answers a tool's Nest client-error exception as an expected tool error", async () => {
        const client = await connect(`${base}/mcp`, modern);
        try {
          reported.length = 0;
          const result = await call(client, 'find_note');
          expect({
            content: result.content,
            isError: result.isError,
            structuredContent: (result as { structuredContent?: unknown }).structuredContent,
          }).toEqual({
            content: [{ type: 'text', text: 'note 3 not found' }],
            isError: true,
            structuredContent: { statusCode: 404, message: 'note 3 not found', error: 'Not Found' },
          });
          expect(reported).toEqual([]);
        } finally {
          await client.close();
        }
      });

      it('keeps singletons singletons', async () => {
        const client = await connect(`${base}/mcp`, modern);
        try {
          const before = Number((await call(client, 'count')).content[0]?.text.split(' ')[1]);
          expect((await call(client, 'count')).content[0]?.text).toBe(`call ${before + 1}`);
          expect(CounterServer.instances).toBe(counterServers);
        } finally {
          await client.close();
        }
      });

      it('answers a denied tool as an unknown one, for the global guard and for @UseGuards', async () => {
        const client = await connect(`${base}/mcp`, modern);
        try {
          const available = 'Available tools: add_note, shout, find_note, slow, count, report';
          await expect(call(client, 'secret_note')).rejects.toThrow(`Unknown tool: "secret_note". ${available}`);
          await expect(call(client, 'purge')).rejects.toThrow(`Unknown tool: "purge". ${available}`);
          await expect(call(client, 'no_such_tool')).rejects.toThrow(`Unknown tool: "no_such_tool". ${available}`);
        } finally {
          await client.close();
        }
      });

      it('fails only the call whose request-scoped provider throws, masking its message, and keeps serving', async () => {
        const client = await connect(`${base}/mcp`, modern);
        try {
          reported.length = 0;
          const failed = await call(client, 'report');
          // Masked by default (NODE_ENV is not production here): the caller reads an error id, never the URL and password.
          expect({ content: failed.content, isError: failed.isError }).toEqual({
            content: [
              {
                type: 'text',
                text: expect.stringMatching(
                  /^Tool "report" failed unexpectedly; the error was logged on the server \(request \S+, error [0-9a-f]{8}\)$/,
                ),
              },
            ],
            isError: true,
          });
          expect(JSON.stringify(failed)).not.toContain('hunter2');
          expect(reported).toEqual(['report: connect ECONNREFUSED postgres://admin:hunter2@db.internal:5432/prod']);
          expect((await call(client, 'add_note', { title: 'after', priority: 1 })).isError).toBeFalsy();
        } finally {
          await client.close();
        }
      });
    });
  }

  it("reads the MCP body itself: Nest's body parsers skip the MCP path", async () => {
    const response = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{"jsonrpc": "2.0", "id": 1, "method": ',
    });
    // Nest's parser would have answered its own 400 ("Unexpected end of JSON input"); this is Armature's.
    expect({ status: response.status, body: await response.json() }).toEqual({
      status: 400,
      body: { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: Invalid JSON' } },
    });
  });

  it('gives guards an ExecutionContext of type mcp with the call', async () => {
    SecretGuard.seen = [];
    AdminOnly.calls = [];
    const client = await connect(`${base}/mcp`, true);
    try {
      await expect(call(client, 'purge')).rejects.toThrow('Unknown tool: "purge"');
    } finally {
      await client.close();
    }
    // The call, then the list behind "Available tools" in the refusal: every time as 'mcp'.
    expect(new Set(SecretGuard.seen)).toEqual(new Set(['mcp']));
    const calls = AdminOnly.calls.filter((c) => c.phase === 'call');
    expect(calls).toHaveLength(1);
    const [seen] = calls;
    expect({ ...seen, context: seen?.context instanceof Context }).toEqual({
      kind: 'tool',
      name: 'purge',
      phase: 'call',
      args: undefined,
      context: true,
      principal: undefined,
    });
  });

  it('denies the same @Secret() handler on REST (403) as on MCP', async () => {
    const response = await fetch(`${base}/notes/secret`);
    expect(response.status).toBe(403);
  });

  it('serves REST beside MCP, with the request-scoped repository seeing an HTTP request', async () => {
    const response = await fetch(`${base}/notes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'bread', priority: 4 }),
    });
    expect(response.status).toBe(201);
    expect(await response.json()).toEqual({ note: expect.stringMatching(/^saved "bread" \(p4\) in repository #\d+ via http POST$/) });
  });

  it('reports the same problems for the same bad input on REST (ArmatureValidationPipe) and MCP', async () => {
    for (const bad of [{ title: 'ab', priority: 9 }, { title: 7 }, { title: 'fine', priority: 1.5, extra: true }]) {
      const response = await fetch(`${base}/notes`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(bad),
      });
      expect(response.status).toBe(400);
      const rest = ((await response.json()) as { message: string[] }).message;
      const client = await connect(`${base}/mcp`, true);
      let mcp: ToolResult;
      try {
        mcp = await call(client, 'add_note', bad);
      } finally {
        await client.close();
      }
      expect(mcp.isError).toBe(true);
      const [heading, ...lines] = (mcp.content[0]?.text ?? '').split('\n');
      expect(heading).toBe('Invalid arguments for tool "add_note":');
      expect(lines.map((line) => line.trim())).toEqual(rest);
      expect(rest.length).toBeGreaterThan(0);
    }
  });
});
