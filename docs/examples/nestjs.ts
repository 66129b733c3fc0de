import type { AddressInfo } from 'node:net';
import { type Context, McpServer, Tool } from '@armature/core';
import { ArmatureModule, ArmatureValidationPipe, MCP_CONTEXT, type McpCall } from '@armature/nestjs';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  Body,
  type CanActivate,
  Controller,
  type ExecutionContext,
  type INestApplication,
  Inject,
  Injectable,
  Module,
  Post,
  Scope,
  SetMetadata,
} from '@nestjs/common';
import { APP_GUARD, NestFactory, Reflector } from '@nestjs/core';
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
  readonly serial = ++NotesRepository.built;

  constructor(@Inject(MCP_CONTEXT) private readonly ctx: Context | undefined) {}

  add(input: CreateNoteInput): string {
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
export function AdminOnly() {
  return SetMetadata('admin-only', true);
}

@Injectable()
export class RolesGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    if (!this.reflector.getAllAndOverride<boolean>('admin-only', [context.getHandler(), context.getClass()])) return true;
    if (context.getType<string>() === 'mcp') {
      const call = context.switchToHttp().getRequest<McpCall>(); // tool name, phase, principal, Context
      return call.principal?.extra?.role === 'admin';
    }
    return context.switchToHttp().getRequest<{ headers: Record<string, string> }>().headers['x-role'] === 'admin';
  }
}
// #endregion

// #region app-module
@Module({
  imports: [ArmatureModule.forRoot({ http: { path: '/mcp' } }), NotesModule],
  providers: [{ provide: APP_GUARD, useClass: RolesGuard }],
})
export class AppModule {}
// #endregion

// #region bootstrap
export async function bootstrap(port = 3000): Promise<INestApplication> {
  const app = await NestFactory.create(AppModule);
  app.useGlobalPipes(new ArmatureValidationPipe()); // REST bodies checked exactly as tool inputs
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

export async function main(): Promise<void> {
  await forgottenServer();
  await configuredPath();
  const app = await NestFactory.create(AppModule, { logger: false });
  app.useGlobalPipes(new ArmatureValidationPipe());
  await app.listen(0, '127.0.0.1');
  const base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
  const client = new Client({ name: 'docs-check', version: '1.0.0' });
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)));
    const { tools } = await client.listTools();
    expectEqual(
      tools.map((tool) => tool.name),
      ['add_note'],
      'purge_notes is hidden by the global guard',
    );
    const first = (await client.callTool({ name: 'add_note', arguments: { title: 'milk', priority: 'low' } })) as {
      content: Array<{ text: string }>;
    };
    const second = (await client.callTool({ name: 'add_note', arguments: { title: 'eggs', priority: 'high' } })) as {
      content: Array<{ text: string }>;
    };
    const built = NotesRepository.built;
    expectEqual(
      [first.content[0]?.text, second.content[0]?.text],
      [`Added "milk" (repository #${built - 1}, MCP request 2)`, `Added "eggs" (repository #${built}, MCP request 3)`],
      'one repository per call, with the Context',
    );

    const bad = { title: 'no', priority: 'urgent' };
    const rest = await fetch(`${base}/notes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(bad),
    });
    expectEqual([rest.status, await rest.json()], [400, JSON.parse(outputs.rest as string)], 'REST 400');
    const mcp = (await client.callTool({ name: 'add_note', arguments: bad })) as { content: Array<{ text: string }>; isError?: boolean };
    expectEqual([mcp.isError, mcp.content[0]?.text], [true, outputs.mcp], 'MCP tool error');

    const created = await fetch(`${base}/notes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'bread', priority: 'normal' }),
    });
    expectEqual(await created.text(), `Added "bread" (repository #${NotesRepository.built}, REST)`, 'REST shares the repository');
  } finally {
    await client.close();
    await app.close();
  }
}
