import type { AddressInfo } from 'node:net';
import { Context, Field, McpServer, RequireScopes, Tool } from '@armature/core';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  type ArgumentMetadata,
  type ArgumentsHost,
  Body,
  type CallHandler,
  type CanActivate,
  Catch,
  ClassSerializerInterceptor,
  Controller,
  type ExceptionFilter,
  type ExecutionContext,
  ForbiddenException,
  Get,
  HttpException,
  type INestApplication,
  Inject,
  Injectable,
  Module,
  type NestInterceptor,
  type PipeTransform,
  Post,
  Req,
  Scope,
  ServiceUnavailableException,
  UseFilters,
  UseGuards,
  UsePipes,
  ValidationPipe,
} from '@nestjs/common';
import { APP_FILTER, APP_INTERCEPTOR, BaseExceptionFilter, HttpAdapterHost, NestFactory, REQUEST, Reflector } from '@nestjs/core';
import { AuthGuard, PassportModule, PassportStrategy } from '@nestjs/passport';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { Exclude } from 'class-transformer';
import { IsInt, IsString, Min } from 'class-validator';
import jwt from 'jsonwebtoken';
import { ClsModule, ClsService } from 'nestjs-cls';
import { ExtractJwt, Strategy } from 'passport-jwt';
import { tap } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ArmatureModule, isMcpRequest, type McpRequest, mcpCallOf } from '../src/index.js';

// A Nest backend's own rules, written as for REST, applied unchanged to the MCP tools beside its
// controllers: Passport's AuthGuard('jwt'), a global guard and filter and interceptors added in
// main.ts, a filter on the class, ClassSerializerInterceptor, nestjs-cls set in middleware.

const SECRET = 'armature-nest-test-secret';
const token = (sub: string, roles: string[] = []) => jwt.sign({ sub, roles }, SECRET, { expiresIn: '5m' });

interface User {
  readonly id: string;
  readonly roles: readonly string[];
}

@Injectable()
class JwtStrategy extends PassportStrategy(Strategy) {
  constructor() {
    super({ jwtFromRequest: ExtractJwt.fromAuthHeaderAsBearerToken(), secretOrKey: SECRET });
  }

  validate(payload: { sub: string; roles: string[] }): User {
    return { id: payload.sub, roles: payload.roles };
  }
}

/** Added in main.ts with useGlobalGuards: refuses any request carrying `x-blocked: yes`. */
class BlockList implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    return context.switchToHttp().getRequest<{ headers: Record<string, string> }>().headers['x-blocked'] !== 'yes';
  }
}

/** A guard with a bug: it reads a header that is not there. */
@Injectable()
class BrokenGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<{ headers: Record<string, string> }>();
    return (request.headers['x-tenant'] as unknown as { secretInternalDetail: () => boolean }).secretInternalDetail();
  }
}

/** A guard reading what Passport put on request.user (runs after AuthGuard, on the method). */
@Injectable()
class AdminsOnly implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    return (context.switchToHttp().getRequest<{ user?: User }>().user?.roles ?? []).includes('admin');
  }
}

class InsufficientFunds extends Error {
  constructor(readonly missing: number) {
    super(`internal ledger state: balance short by ${missing}`);
  }
}

/** Added in main.ts with useGlobalFilters: the portable way (HttpAdapterHost.reply) of a Nest filter. */
@Catch(InsufficientFunds)
class DomainErrorFilter implements ExceptionFilter {
  constructor(private readonly adapterHost: HttpAdapterHost) {}
  catch(error: InsufficientFunds, host: ArgumentsHost): void {
    const body = { statusCode: 409, message: `Insufficient funds: ${error.missing} EUR missing`, error: 'Conflict' };
    this.adapterHost.httpAdapter.reply(host.switchToHttp().getResponse(), body, 409);
  }
}

/** An APP_FILTER catching everything, answering through Nest's BaseExceptionFilter as most apps' catch-all does. */
@Catch()
class EverythingFilter extends BaseExceptionFilter {
  static seen: string[] = [];
  override catch(error: Error, host: ArgumentsHost): void {
    EverythingFilter.seen.push(error.constructor.name);
    super.catch(error, host);
  }
}

class QuotaExceeded extends Error {}

/** On the class: turns the quota error into a 429 with a Retry-After header. */
@Catch(QuotaExceeded)
class QuotaFilter implements ExceptionFilter {
  catch(_error: QuotaExceeded, host: ArgumentsHost): void {
    host.switchToHttp().getResponse<{ header(n: string, v: string): unknown }>().header('Retry-After', '30');
    throw new HttpException('Daily quota reached', 429);
  }
}

/** Added in main.ts with useGlobalInterceptors: counts what it wraps, on REST and MCP. */
class Audit implements NestInterceptor {
  static seen: string[] = [];
  intercept(context: ExecutionContext, next: CallHandler) {
    const request = context.switchToHttp().getRequest();
    const what = isMcpRequest(request) ? `mcp ${mcpCallOf(request)?.name}` : 'http';
    return next.handle().pipe(tap(() => Audit.seen.push(what)));
  }
}

/** A request-scoped APP_INTERCEPTOR: built per call in the call's Nest context, with the call's REQUEST. */
@Injectable({ scope: Scope.REQUEST })
class RequestLog implements NestInterceptor {
  static lines: string[] = [];
  constructor(@Inject(REQUEST) private readonly request: { headers: Record<string, string | undefined> }) {}
  intercept(context: ExecutionContext, next: CallHandler) {
    const call = mcpCallOf(context.switchToHttp().getRequest());
    RequestLog.lines.push(`${call ? `mcp ${call.name}` : 'http'} ${this.request.headers['x-request-id']}`);
    return next.handle();
  }
}

/** Request-scoped: reads the REQUEST a tool is served in. */
@Injectable({ scope: Scope.REQUEST })
class Caller {
  constructor(
    @Inject(REQUEST) private readonly request: McpRequest<{ user?: User; headers: Record<string, string> }>,
    private readonly cls: ClsService,
  ) {}

  describe(): string {
    return `${this.request.user?.id} (request id ${this.cls.get('requestId')} in the provider)`;
  }
}

class TransferInput {
  @IsString()
  to!: string;

  @IsInt()
  @Min(1)
  amount!: number;
}

class ProfileOutput {
  @Field({ description: 'The user id' })
  @IsString()
  id!: string;

  @Field({ description: 'The display name' })
  @IsString()
  name!: string;

  @Exclude()
  passwordHash?: string;
}

/** A transforming pipe, as apps add with useGlobalPipes. */
class TrimPipe implements PipeTransform {
  transform(value: unknown): unknown {
    return typeof value === 'string' ? value.trim() : value;
  }
}

@McpServer({ name: 'bank', version: '1.0.0' })
@UsePipes(TrimPipe)
@UseGuards(AuthGuard('jwt'))
@UseFilters(QuotaFilter)
@Injectable()
class BankServer {
  constructor(
    private readonly caller: Caller,
    private readonly cls: ClsService,
  ) {}

  @Tool({ description: 'Who is calling' })
  whoami(): string {
    return `user ${this.caller.describe()}, request id ${this.cls.get('requestId')} in the tool`;
  }

  @UsePipes(TrimPipe)
  @Tool({ description: 'Moves money' })
  transfer(input: TransferInput): string {
    if (input.amount > 100) throw new InsufficientFunds(input.amount - 100);
    return `sent ${input.amount} to ${input.to}`;
  }

  @Tool({ description: 'Uses the daily quota' })
  quota(): string {
    throw new QuotaExceeded('internal quota table row 7');
  }

  @Tool({ description: 'Forbidden once inside' })
  vault(): string {
    throw new ForbiddenException('the vault is closed');
  }

  @UseGuards(AdminsOnly)
  @Tool({ description: 'Admins only' })
  audit_log(): string {
    return 'audit log';
  }

  @UseGuards(BrokenGuard)
  @Tool({ description: 'Behind a broken guard' })
  tenant(): string {
    return 'tenant data';
  }

  @Tool({ description: 'A profile, shaped by ClassSerializerInterceptor', output: () => ProfileOutput })
  profile(): ProfileOutput {
    return Object.assign(new ProfileOutput(), { id: 'u1', name: 'Ada', passwordHash: 'secret-hash' });
  }
}

@Controller('bank')
@UseGuards(AuthGuard('jwt'))
class BankController {
  @Get('me')
  me(@Req() request: { user: User }): User {
    return request.user;
  }

  @Post('transfer')
  transfer(@Body() input: { amount: number }): string {
    throw new InsufficientFunds(input.amount - 100);
  }
}

@Module({
  imports: [
    PassportModule,
    ClsModule.forRoot({
      global: true,
      middleware: {
        mount: true,
        setup: (cls, request: { headers: Record<string, string> }) => cls.set('requestId', request.headers['x-request-id']),
      },
    }),
    ArmatureModule.forRoot({ http: { path: '/mcp' } }),
  ],
  providers: [
    JwtStrategy,
    Caller,
    BankServer,
    AdminsOnly,
    BrokenGuard,
    { provide: APP_FILTER, useClass: EverythingFilter },
    { provide: APP_INTERCEPTOR, useClass: RequestLog },
  ],
  controllers: [BankController],
})
class AppModule {}

type ToolResult = { content: Array<{ type: string; text: string }>; isError?: boolean; structuredContent?: unknown };

async function connect(url: string, modern: boolean, headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'nest-rules', version: '1' }, modern ? { versionNegotiation: { mode: 'auto' } } : {});
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

describe.each(['express', 'fastify'] as const)("a Nest app on %s: the app's own rules apply to MCP", (platform) => {
  let app: INestApplication;
  let base: string;
  const alice = { authorization: `Bearer ${token('alice')}`, 'x-request-id': 'req-42' };
  const admin = { authorization: `Bearer ${token('root', ['admin'])}` };

  beforeAll(async () => {
    app =
      platform === 'express'
        ? await NestFactory.create(AppModule, { logger: false })
        : await NestFactory.create(AppModule, new FastifyAdapter(), { logger: false });
    app.useGlobalGuards(new BlockList());
    app.useGlobalFilters(new DomainErrorFilter(app.get(HttpAdapterHost)));
    app.useGlobalInterceptors(new Audit(), new ClassSerializerInterceptor(app.get(Reflector)));
    await app.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await app?.close();
  });

  it("REST: AuthGuard('jwt') accepts the token and refuses its absence; the global filter answers 409", async () => {
    expect((await fetch(`${base}/bank/me`)).status).toBe(401);
    const me = await fetch(`${base}/bank/me`, { headers: alice });
    expect(await me.json()).toEqual({ id: 'alice', roles: [] });
    const blocked = await fetch(`${base}/bank/me`, { headers: { ...alice, 'x-blocked': 'yes' } });
    expect(blocked.status).toBe(403);
    const transfer = await fetch(`${base}/bank/transfer`, {
      method: 'POST',
      headers: { ...alice, 'content-type': 'application/json' },
      body: JSON.stringify({ amount: 150 }),
    });
    expect({ status: transfer.status, body: await transfer.json() }).toEqual({
      status: 409,
      body: { statusCode: 409, message: 'Insufficient funds: 50 EUR missing', error: 'Conflict' },
    });
  });

  for (const modern of [false, true]) {
    const revision = modern ? '2026-07-28' : '2025-11-25';

    describe(`over MCP, ${revision}`, () => {
      it("AuthGuard('jwt') on the server class refuses a call without the token, as REST does", async () => {
        const client = await connect(`${base}/mcp`, modern, {});
        try {
          expect((await client.listTools()).tools).toEqual([]);
          await expect(client.callTool({ name: 'whoami', arguments: {} })).rejects.toThrow('Unknown tool: "whoami"');
        } finally {
          await client.close();
        }
      });

      it('with the REST token the tool runs, and sees request.user and the CLS value set in middleware', async () => {
        const client = await connect(`${base}/mcp`, modern, alice);
        try {
          RequestLog.lines = [];
          const names = (await client.listTools()).tools.map((tool) => tool.name).sort();
          expect(names).toEqual(['profile', 'quota', 'transfer', 'vault', 'whoami']);
          const result = (await client.callTool({ name: 'whoami', arguments: {} })) as ToolResult;
          expect(result.content).toEqual([
            { type: 'text', text: 'user alice (request id req-42 in the provider), request id req-42 in the tool' },
          ]);
          expect(RequestLog.lines).toEqual(['mcp whoami req-42']);
        } finally {
          await client.close();
        }
      });

      it('a guard reading request.user after AuthGuard lets the admin through', async () => {
        const client = await connect(`${base}/mcp`, modern, admin);
        try {
          expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('audit_log');
          const result = (await client.callTool({ name: 'audit_log', arguments: {} })) as ToolResult;
          expect(result.content).toEqual([{ type: 'text', text: 'audit log' }]);
        } finally {
          await client.close();
        }
      });

      it('a global guard added with useGlobalGuards refuses MCP calls as it refuses REST', async () => {
        const allowed = await connect(`${base}/mcp`, modern, { ...alice, 'x-blocked': 'no' });
        try {
          expect((await allowed.listTools()).tools.map((tool) => tool.name)).toContain('whoami');
        } finally {
          await allowed.close();
        }
        const client = await connect(`${base}/mcp`, modern, { ...alice, 'x-blocked': 'yes' });
        try {
          expect((await client.listTools()).tools).toEqual([]);
          await expect(client.callTool({ name: 'whoami', arguments: {} })).rejects.toThrow('Unknown tool: "whoami"');
        } finally {
          await client.close();
        }
      });

      it('a guard that throws a TypeError refuses the call without showing its text', async () => {
        const client = await connect(`${base}/mcp`, modern, alice);
        try {
          const failure = await client.callTool({ name: 'tenant', arguments: {} }).then(
            (result) => JSON.stringify(result),
            (error: Error) => error.message,
          );
          expect(failure).toMatch(/^Unknown tool: "tenant". Available tools: /);
          expect(failure).not.toMatch(/secretInternalDetail|undefined|TypeError/);
        } finally {
          await client.close();
        }
      });

      it('the global filter rewrites a thrown domain error into the tool error the client reads', async () => {
        const client = await connect(`${base}/mcp`, modern, alice);
        try {
          const result = (await client.callTool({ name: 'transfer', arguments: { to: 'bob', amount: 150 } })) as ToolResult;
          expect({ content: result.content, isError: result.isError, structuredContent: result.structuredContent }).toEqual({
            content: [{ type: 'text', text: 'Insufficient funds: 50 EUR missing' }],
            isError: true,
            structuredContent: { statusCode: 409, message: 'Insufficient funds: 50 EUR missing', error: 'Conflict' },
          });
          const ok = (await client.callTool({ name: 'transfer', arguments: { to: 'bob', amount: 5 } })) as ToolResult;
          expect(ok.content).toEqual([{ type: 'text', text: 'sent 5 to bob' }]);
        } finally {
          await client.close();
        }
      });

      it('maps a 429 (class filter, Retry-After) to a tool error with retryAfter, and a 403 (APP_FILTER extending BaseExceptionFilter) to a refusal', async () => {
        const client = await connect(`${base}/mcp`, modern, alice);
        try {
          const limited = (await client.callTool({ name: 'quota', arguments: {} })) as ToolResult;
          expect({ content: limited.content, isError: limited.isError, structuredContent: limited.structuredContent }).toEqual({
            content: [{ type: 'text', text: 'Daily quota reached (retry after 30 s)' }],
            isError: true,
            structuredContent: { message: 'Daily quota reached', retryAfter: 30 },
          });
          EverythingFilter.seen = [];
          // The APP_FILTER catch-all answers the ForbiddenException through BaseExceptionFilter: a 403, refused as unknown.
          await expect(client.callTool({ name: 'vault', arguments: {} })).rejects.toThrow(/^Unknown tool: "vault"$/);
          expect(EverythingFilter.seen).toEqual(['ForbiddenException']);
        } finally {
          await client.close();
        }
      });

      it('global interceptors wrap the call; ClassSerializerInterceptor shapes the structured result', async () => {
        const client = await connect(`${base}/mcp`, modern, alice);
        try {
          Audit.seen = [];
          const result = (await client.callTool({ name: 'profile', arguments: {} })) as ToolResult;
          expect(result.structuredContent).toEqual({ id: 'u1', name: 'Ada' });
          expect(Audit.seen).toEqual(['mcp profile']);
        } finally {
          await client.close();
        }
      });
    });
  }
});

/** A pipe that tags the input it gets, to show which pipes ran, in which order, with what metadata. */
class TagPipe implements PipeTransform {
  constructor(private readonly tag: string) {}
  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    if (!(value instanceof NoteInput)) return value;
    return Object.assign(new NoteInput(), { text: `${value.text} ${this.tag}:${metadata.type}:${metadata.metatype?.name}` });
  }
}

class NoteInput {
  @IsString()
  text!: string;
}

@McpServer({ name: 'notes', version: '1.0.0' })
@UsePipes(new TagPipe('class'))
@Injectable()
class NotesServer {
  @UsePipes(new TagPipe('method'), ValidationPipe)
  @Tool({ description: 'Keeps a note' })
  note(input: NoteInput): string {
    return input.text;
  }
}

@Module({ imports: [ArmatureModule.forRoot({ http: { path: '/mcp' } })], providers: [NotesServer] })
class NotesModule {}

it('runs the pipes on the tool input as on a @Body(), global ones first; ValidationPipe does not validate again', async () => {
  const app = await NestFactory.create(NotesModule, { logger: false });
  app.useGlobalPipes(new ValidationPipe({ whitelist: true, forbidNonWhitelisted: true }), new TagPipe('global'));
  await app.listen(0, '127.0.0.1');
  const client = await connect(`http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}/mcp`, false, {});
  try {
    const result = (await client.callTool({ name: 'note', arguments: { text: 'hi' } })) as ToolResult;
    expect(result.content).toEqual([{ type: 'text', text: 'hi global:body:NoteInput class:body:NoteInput method:body:NoteInput' }]);
    // Invalid input is refused once, with Armature's messages (not ValidationPipe's).
    const refused = (await client.callTool({ name: 'note', arguments: { text: 7 } })) as ToolResult;
    expect(refused.content).toEqual([{ type: 'text', text: 'Invalid arguments for tool "note":\ntext: must be string' }]);
  } finally {
    await client.close();
    await app.close();
  }
});

@McpServer({ name: 'ledger', version: '1.0.0' })
@Injectable()
class LedgerServer {
  @Tool({ description: 'Who the Armature principal is' })
  whoami(ctx: Context): string {
    const principal = ctx.principal;
    return `${String(principal?.extra?.sub)} (client ${principal?.clientId}, scopes ${principal?.scopes.join(' ') || 'none'})`;
  }

  @RequireScopes('admin')
  @Tool({ description: 'Needs the admin scope' })
  audit(): string {
    return 'audited';
  }

  @Tool({ description: 'Fails with a 5xx' })
  balance(): string {
    throw new ServiceUnavailableException('ledger database password rejected');
  }
}

@Module({
  imports: [
    PassportModule,
    ArmatureModule.forRoot({
      onError: () => undefined,
      http: {
        path: '/mcp',
        authenticate: {
          guard: AuthGuard('jwt'),
          principal: (user: User) => ({ clientId: 'bank-app', scopes: [...user.roles], extra: { sub: user.id } }),
          resource: 'http://127.0.0.1/mcp',
          authorizationServers: ['http://127.0.0.1/login'],
        },
      },
    }),
  ],
  providers: [JwtStrategy, LedgerServer],
})
class GuardAuthModule {}

describe.each(['express', 'fastify'] as const)('http.authenticate on %s: the Nest user is the Armature principal', (platform) => {
  let app: INestApplication;
  let base: string;

  beforeAll(async () => {
    app =
      platform === 'express'
        ? await NestFactory.create(GuardAuthModule, { logger: false })
        : await NestFactory.create(GuardAuthModule, new FastifyAdapter(), { logger: false });
    await app.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await app?.close();
  });

  it('answers 401 with a WWW-Authenticate challenge when AuthGuard refuses the token', async () => {
    for (const authorization of [undefined, `Bearer ${jwt.sign({ sub: 'eve' }, 'another-secret')}`]) {
      const response = await fetch(`${base}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...(authorization ? { authorization } : {}),
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toMatch(/^Bearer /);
    }
  });

  for (const modern of [false, true]) {
    it(`gives the call the principal made from request.user, whose scopes guard the tools (${modern ? '2026-07-28' : '2025-11-25'})`, async () => {
      const bob = await connect(`${base}/mcp`, modern, { authorization: `Bearer ${token('bob')}` });
      try {
        expect((await bob.listTools()).tools.map((tool) => tool.name)).toEqual(['whoami', 'balance']);
        const result = (await bob.callTool({ name: 'whoami', arguments: {} })) as ToolResult;
        expect(result.content).toEqual([{ type: 'text', text: 'bob (client bank-app, scopes none)' }]);
        // A 5xx HttpException is an unexpected failure: masked (the default, whatever NODE_ENV says).
        const failed = (await bob.callTool({ name: 'balance', arguments: {} })) as ToolResult;
        expect({ isError: failed.isError, text: failed.content[0]?.text }).toEqual({
          isError: true,
          text: expect.stringMatching(
            /^Tool "balance" failed unexpectedly; the error was logged on the server \(request \S+, error [0-9a-f]{8}\)$/,
          ),
        });
      } finally {
        await bob.close();
      }
      const root = await connect(`${base}/mcp`, modern, { authorization: `Bearer ${token('root', ['admin'])}` });
      try {
        expect((await root.listTools()).tools.map((tool) => tool.name)).toEqual(['whoami', 'audit', 'balance']);
        const result = (await root.callTool({ name: 'whoami', arguments: {} })) as ToolResult;
        expect(result.content).toEqual([{ type: 'text', text: 'root (client bank-app, scopes admin)' }]);
      } finally {
        await root.close();
      }
    });
  }
});

it('refuses to start with both http.auth and http.authenticate', async () => {
  @Module({
    imports: [
      ArmatureModule.forRoot({
        http: {
          auth: { verifier: { verify: () => Promise.reject(new Error('unused')) }, resource: 'http://x/mcp', authorizationServers: [] },
          authenticate: {
            guard: AuthGuard('jwt'),
            principal: () => ({ clientId: 'c', scopes: [], extra: { sub: 's' } }),
            resource: 'http://x/mcp',
            authorizationServers: [],
          },
        },
      }),
    ],
    providers: [LedgerServer],
  })
  class TwiceModule {}

  const failure = await NestFactory.create(TwiceModule, { logger: false, abortOnError: false })
    .then((created) => created.init())
    .then(
      () => 'started',
      (error: Error) => error.message,
    );
  expect(failure).toContain('ArmatureModule.forRoot: http.auth and http.authenticate are both set');
});
