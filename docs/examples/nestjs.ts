import type { AddressInfo } from 'node:net';
import { Context, McpServer, RequireScopes, Tool } from '@armature/core';
import { ArmatureModule, ArmatureValidationPipe, MCP_CONTEXT } from '@armature/nestjs';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  type ArgumentsHost,
  Body,
  type CanActivate,
  Catch,
  Controller,
  type ExceptionFilter,
  type ExecutionContext,
  type INestApplication,
  Inject,
  Injectable,
  Module,
  Post,
  Scope,
  SetMetadata,
  UnauthorizedException,
} from '@nestjs/common';
import { APP_GUARD, HttpAdapterHost, NestFactory, Reflector } from '@nestjs/core';
import { IsIn, IsString, MinLength } from 'class-validator';
import { expectEqual } from './support/check.js';

// #region module
export class CreateNoteInput {
  @IsString()
  @MinLength(3)
  title!: string;

  @IsIn(['low', 'normal', 'high'])
  priority!: string;
}

@Injectable({ scope: Scope.REQUEST }) // a new instance per REST request and per MCP call
export class NotesRepository {
  static built = 0;
  static added = 0;
  readonly serial = ++NotesRepository.built;

  constructor(@Inject(MCP_CONTEXT) private readonly ctx: Context | undefined) {}

  add(input: CreateNoteInput): string {
    if (++NotesRepository.added > NOTEBOOK_SIZE) throw new NotebookFull();
    const via = this.ctx ? `MCP request ${String(this.ctx.requestId)}` : 'REST';
    return `Added "${input.title}" (repository #${this.serial}, ${via})`;
  }
}

@McpServer({ name: 'notes', version: '1.0.0' })
@Injectable()
export class NotesServer {
  constructor(private readonly repository: NotesRepository) {}

  @Tool({ description: 'Add a note' })
  add_note(input: CreateNoteInput): string {
    return this.repository.add(input);
  }

  @AdminOnly()
  @Tool({ description: 'Delete every note' })
  purge_notes(): string {
    return 'Deleted';
  }
}

@Controller('notes')
export class NotesController {
  constructor(private readonly repository: NotesRepository) {}

  @Post()
  add(@Body() input: CreateNoteInput): string {
    return this.repository.add(input);
  }
}

@Module({ providers: [NotesRepository, NotesServer], controllers: [NotesController] })
export class NotesModule {}
// #endregion

// #region guard
interface User {
  readonly name: string;
  readonly role: 'admin' | 'member';
}

const API_KEYS: Record<string, User> = { 'key-ada': { name: 'ada', role: 'admin' }, 'key-bob': { name: 'bob', role: 'member' } };

/** The app's authentication, written for REST: the x-api-key header names the user. */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<{ headers: Record<string, string | undefined>; user?: User }>();
    const user = API_KEYS[request.headers['x-api-key'] ?? ''];
    if (!user) throw new UnauthorizedException();
    request.user = user; // what Passport's AuthGuard does too
    return true;
  }
}

export function AdminOnly() {
  return SetMetadata('admin-only', true);
}

/** The app's authorization: reads the route's metadata and request.user, as on a controller. */
@Injectable()
export class RolesGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    if (!this.reflector.getAllAndOverride<boolean>('admin-only', [context.getHandler(), context.getClass()])) return true;
    return context.switchToHttp().getRequest<{ user?: User }>().user?.role === 'admin';
  }
}
// #endregion

// #region filter
export const NOTEBOOK_SIZE = 3;

export class NotebookFull extends Error {}

/** Answers the domain error as a 409, through Nest's HTTP adapter (Express or Fastify alike). */
@Catch(NotebookFull)
export class NotebookFullFilter implements ExceptionFilter {
  constructor(private readonly adapterHost: HttpAdapterHost) {}

  catch(_error: NotebookFull, host: ArgumentsHost): void {
    const body = { statusCode: 409, message: `The notebook is full (${NOTEBOOK_SIZE} notes): delete one first` };
    this.adapterHost.httpAdapter.reply(host.switchToHttp().getResponse(), body, 409);
  }
}
// #endregion

// #region guard-auth
/** The app's bearer keys, checked by the guard its REST routes use; it leaves the user on request.user. */
@Injectable()
export class BearerKeyGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<{ headers: Record<string, string | undefined>; user?: User }>();
    const user = API_KEYS[/^Bearer (\S+)$/.exec(request.headers.authorization ?? '')?.[1] ?? ''];
    if (!user) throw new UnauthorizedException();
    request.user = user;
    return true;
  }
}

@McpServer({ name: 'account', version: '1.0.0' })
@Injectable()
export class AccountServer {
  @Tool({ description: 'Who is calling' })
  whoami(ctx: Context): string {
    return `${String(ctx.principal?.extra?.sub)} (scopes: ${ctx.principal?.scopes.join(' ') || 'none'})`;
  }

  @RequireScopes('notes:admin')
  @Tool({ description: 'Archive every note' })
  archive_all(): string {
    return 'Archived';
  }
}

@Module({
  imports: [
    ArmatureModule.forRoot({
      http: {
        path: '/mcp',
        authenticate: {
          guard: BearerKeyGuard, // or AuthGuard('jwt') from @nestjs/passport
          principal: (user: User) => ({
            clientId: 'notes-app',
            scopes: user.role === 'admin' ? ['notes:admin'] : [],
            extra: { sub: user.name },
          }),
          resource: 'https://notes.example.com/mcp',
          authorizationServers: ['https://login.example.com'],
        },
      },
    }),
  ],
  providers: [AccountServer],
})
export class AuthenticatedAppModule {}
// #endregion

// #region app-module
@Module({
  imports: [ArmatureModule.forRoot({ http: { path: '/mcp' } }), NotesModule],
  providers: [
    { provide: APP_GUARD, useClass: ApiKeyGuard },
    { provide: APP_GUARD, useClass: RolesGuard },
  ],
})
export class AppModule {}
// #endregion

// #region bootstrap
/** The rules main.ts adds: they apply to REST routes and MCP calls alike. */
export function applyAppRules(app: INestApplication): void {
  app.useGlobalPipes(new ArmatureValidationPipe()); // REST bodies checked exactly as tool inputs
  app.useGlobalFilters(new NotebookFullFilter(app.get(HttpAdapterHost)));
}

export async function bootstrap(port = 3000): Promise<INestApplication> {
  const app = await NestFactory.create(AppModule);
  applyAppRules(app);
  app.enableShutdownHooks(); // SIGTERM: running MCP calls finish, then sessions close
  await app.listen(port, '127.0.0.1'); // REST on /notes, MCP on /mcp, one port
  return app;
}
// #endregion

// #region async-options
@Injectable()
export class McpSettings {
  readonly path = process.env.MCP_PATH ?? '/ai';
}

@Module({ providers: [McpSettings], exports: [McpSettings] })
export class SettingsModule {}

@Module({
  imports: [
    ArmatureModule.forRootAsync({
      imports: [SettingsModule],
      inject: [McpSettings],
      useFactory: (settings: McpSettings) => ({ http: { path: settings.path }, shutdownDeadlineMs: 15_000 }),
    }),
    NotesModule,
  ],
})
export class ConfiguredAppModule {}
// #endregion

// #region forgotten
@Injectable()
export class ArchiveService {
  @Tool({ description: 'Archive old notes' })
  archive_notes(): string {
    return 'Archived';
  }
}
// #endregion

// #region stdio
export async function serveStdio(): Promise<void> {
  @Module({ imports: [ArmatureModule.forRoot({ http: false, stdio: true }), NotesModule] })
  class StdioModule {}

  // Nest's logger writes to stdout, which belongs to the protocol over stdio.
  await NestFactory.createApplicationContext(StdioModule, { logger: false });
}
// #endregion

export const outputs: Record<string, string> = {
  startup: `Armature cannot start the MCP server of this Nest app: 1 problem in the Nest providers.
  1. ArchiveService: is a provider of ArchiveModule with @Tool, @Resource or @Prompt methods but has no @McpServer, so they are not served
     Fix: add @McpServer({ name: 'ArchiveService', version: '1.0.0' }) above @Injectable() on ArchiveService`,
  rest: `{
  "message": [
    "title: must be longer than or equal to 3 characters",
    "priority: must be one of the following values: low, normal, high"
  ],
  "error": "Bad Request",
  "statusCode": 400
}`,
  mcp: `Invalid arguments for tool "add_note":
title: must be longer than or equal to 3 characters
priority: must be one of the following values: low, normal, high`,
  full: 'The notebook is full (3 notes): delete one first',
};

/** forRootAsync: the endpoint is where the settings say. */
async function configuredPath(): Promise<void> {
  const app = await NestFactory.create(ConfiguredAppModule, { logger: false });
  await app.listen(0, '127.0.0.1');
  const client = new Client({ name: 'docs-check', version: '1.0.0' });
  try {
    const port = (app.getHttpServer().address() as AddressInfo).port;
    await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}${new McpSettings().path}`)));
    expectEqual(
      (await client.listTools()).tools.map((tool) => tool.name),
      ['add_note', 'purge_notes'],
      'no guard in this app',
    );
  } finally {
    await client.close();
    await app.close();
  }
}

/** http.authenticate: the guard's user is the principal, and its scopes guard the tools. */
async function guardAuthentication(): Promise<void> {
  const app = await NestFactory.create(AuthenticatedAppModule, { logger: false });
  await app.listen(0, '127.0.0.1');
  const url = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}/mcp`;
  try {
    const stranger = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expectEqual(stranger.status, 401, 'no bearer key: 401 with a WWW-Authenticate challenge');
    for (const [key, tools, whoami] of [
      ['key-bob', ['whoami'], 'bob (scopes: none)'],
      ['key-ada', ['whoami', 'archive_all'], 'ada (scopes: notes:admin)'],
    ] as const) {
      const client = new Client({ name: 'docs-check', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${key}` } } }),
      );
      try {
        expectEqual(
          (await client.listTools()).tools.map((tool) => tool.name),
          [...tools],
          `${key}: the tools its scopes allow`,
        );
        const result = (await client.callTool({ name: 'whoami', arguments: {} })) as ToolResult;
        expectEqual(result.content[0]?.text, whoami, `${key}: the principal made from request.user`);
      } finally {
        await client.close();
      }
    }
  } finally {
    await app.close();
  }
}

/** The start-up error names the provider, its module and the fix. */
async function forgottenServer(): Promise<void> {
  @Module({ providers: [ArchiveService] })
  class ArchiveModule {}

  @Module({ imports: [ArmatureModule.forRoot({ http: false }), NotesModule, ArchiveModule] })
  class BrokenModule {}

  const failure = await NestFactory.createApplicationContext(BrokenModule, { logger: false, abortOnError: false }).then(
    () => 'started',
    (error: Error) => error.message,
  );
  expectEqual(failure, outputs.startup, 'start-up error');
}

async function connect(base: string, apiKey: string): Promise<Client> {
  const client = new Client({ name: 'docs-check', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { 'x-api-key': apiKey } } });
  await client.connect(transport);
  return client;
}

type ToolResult = { content: Array<{ text: string }>; isError?: boolean };

export async function main(): Promise<void> {
  await forgottenServer();
  await configuredPath();
  await guardAuthentication();
  const app = await NestFactory.create(AppModule, { logger: false });
  applyAppRules(app);
  await app.listen(0, '127.0.0.1');
  const base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
  const json = { 'content-type': 'application/json', 'x-api-key': 'key-bob' };
  const bob = await connect(base, 'key-bob');
  const ada = await connect(base, 'key-ada');
  const stranger = new Client({ name: 'docs-check', version: '1.0.0' });
  await stranger.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)));
  try {
    expectEqual((await stranger.listTools()).tools, [], 'no API key: ApiKeyGuard refuses every tool, as it answers REST 401');
    expectEqual(
      (await fetch(`${base}/notes`, { method: 'POST', headers: { 'content-type': 'application/json' } })).status,
      401,
      'REST 401',
    );
    expectEqual(
      (await bob.listTools()).tools.map((tool) => tool.name),
      ['add_note'],
      'purge_notes is hidden from a member by RolesGuard, reading request.user',
    );
    expectEqual(
      (await ada.listTools()).tools.map((tool) => tool.name),
      ['add_note', 'purge_notes'],
      'the admin sees it',
    );
    const first = (await bob.callTool({ name: 'add_note', arguments: { title: 'milk', priority: 'low' } })) as ToolResult;
    const second = (await bob.callTool({ name: 'add_note', arguments: { title: 'eggs', priority: 'high' } })) as ToolResult;
    const built = NotesRepository.built;
    expectEqual(
      [first.content[0]?.text, second.content[0]?.text],
      [`Added "milk" (repository #${built - 1}, MCP request 2)`, `Added "eggs" (repository #${built}, MCP request 3)`],
      'one repository per call, with the Context',
    );

    const bad = { title: 'no', priority: 'urgent' };
    const rest = await fetch(`${base}/notes`, { method: 'POST', headers: json, body: JSON.stringify(bad) });
    expectEqual([rest.status, await rest.json()], [400, JSON.parse(outputs.rest as string)], 'REST 400');
    const mcp = (await bob.callTool({ name: 'add_note', arguments: bad })) as ToolResult;
    expectEqual([mcp.isError, mcp.content[0]?.text], [true, outputs.mcp], 'MCP tool error');

    const created = await fetch(`${base}/notes`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ title: 'bread', priority: 'normal' }),
    });
    expectEqual(await created.text(), `Added "bread" (repository #${NotesRepository.built}, REST)`, 'REST shares the repository');

    // The notebook holds three notes: the global filter answers the fourth on both doors.
    const full = await fetch(`${base}/notes`, { method: 'POST', headers: json, body: JSON.stringify({ title: 'jam', priority: 'low' }) });
    expectEqual([full.status, ((await full.json()) as { message: string }).message], [409, outputs.full], 'REST 409 from the filter');
    const refused = (await bob.callTool({ name: 'add_note', arguments: { title: 'tea', priority: 'low' } })) as ToolResult;
    expectEqual([refused.isError, refused.content[0]?.text], [true, outputs.full], 'MCP tool error from the same filter');
  } finally {
    await Promise.all([bob.close(), ada.close(), stranger.close()]);
    await app.close();
  }
}
