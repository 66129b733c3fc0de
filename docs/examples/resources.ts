import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  ArmatureBuildError,
  Context,
  createMcpApp,
  Field,
  McpError,
  McpServer,
  Prompt,
  Resource,
  ResourceTemplate,
  Tool,
  ToolError,
} from '@armature/core';
import { Client, ProtocolError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { IsNumberString, IsString } from 'class-validator';
import { connectInMemory, expectEqual, json } from './support/check.js';

// #region fixed
@McpServer({ name: 'settings', version: '1.0.0' })
export class SettingsServer {
  private settings = { theme: 'dark', language: 'en' };

  @Resource({
    uri: 'config://app',
    name: 'app-config',
    title: 'Application settings',
    description: 'The settings the assistant should respect',
    mimeType: 'application/json',
  })
  appConfig() {
    return JSON.stringify(this.settings);
  }

  @Resource({ uri: 'images://logo.png', name: 'logo', mimeType: 'image/png' })
  logo() {
    return new Uint8Array([137, 80, 78, 71]); // bytes are sent as a base64 blob
  }
}
// #endregion

// #region return-types
@McpServer({ name: 'shapes', version: '1.0.0' })
export class ShapesServer {
  @Resource({ uri: 'demo://string', name: 'string', mimeType: 'text/plain' })
  string() {
    return 'hello';
  }

  @Resource({ uri: 'demo://bytes', name: 'bytes' })
  bytes() {
    return new Uint8Array([1, 2, 3]);
  }

  @Resource({ uri: 'demo://object', name: 'object' })
  object() {
    return { theme: 'dark' };
  }

  @Resource({ uri: 'demo://text-contents', name: 'text-contents' })
  textContents() {
    return { text: '# Notes', mimeType: 'text/markdown' };
  }

  @Resource({ uri: 'demo://blob-contents', name: 'blob-contents' })
  blobContents() {
    return { blob: 'AQID', mimeType: 'application/octet-stream' };
  }

  @Resource({ uri: 'demo://several', name: 'several' })
  several() {
    return [{ text: 'part one' }, { uri: 'demo://several#2', text: 'part two' }];
  }

  @Resource({ uri: 'demo://result', name: 'result' })
  result() {
    return { contents: [{ uri: 'demo://result', text: 'as is' }] };
  }
}
// #endregion

// #region template
export class UserParams {
  @Field('Numeric user id')
  @IsNumberString()
  id!: string;
}

@McpServer({ name: 'directory', version: '1.0.0' })
export class DirectoryServer {
  private readonly users = new Map([['42', { id: '42', name: 'Ada' }]]);

  @ResourceTemplate({ uriTemplate: 'users://{id}/profile', name: 'user-profile', mimeType: 'application/json' })
  profile(params: UserParams) {
    // params is a validated UserParams instance; template variables always arrive as strings.
    const user = this.users.get(params.id);
    if (!user) throw new McpError(-32004, `No user ${params.id}`);
    return user; // an object: sent as JSON text
  }
}
// #endregion

// #region template-error
export class ReportParams {
  @IsString()
  year!: string;
}

@McpServer({ name: 'reports', version: '1.0.0' })
export class ReportsServer {
  @ResourceTemplate({ uriTemplate: 'reports://{year}/{quarter}', name: 'report' })
  report(params: ReportParams) {
    return `Report for ${params.year}`;
  }
}
// #endregion

export const outputs: Record<string, string> = {
  'fixed-list': `{
  "resources": [
    {
      "uri": "config://app",
      "name": "app-config",
      "title": "Application settings",
      "description": "The settings the assistant should respect",
      "mimeType": "application/json"
    },
    {
      "uri": "images://logo.png",
      "name": "logo",
      "mimeType": "image/png"
    }
  ]
}`,
  'fixed-read': `{
  "contents": [
    {
      "uri": "images://logo.png",
      "mimeType": "image/png",
      "blob": "iVBORw=="
    }
  ]
}`,
  'return-table': '',
  'template-list': `{
  "resourceTemplates": [
    {
      "uriTemplate": "users://{id}/profile",
      "name": "user-profile",
      "mimeType": "application/json"
    }
  ]
}`,
  'template-read': `{
  "contents": [
    {
      "uri": "users://42/profile",
      "mimeType": "application/json",
      "text": "{\\"id\\":\\"42\\",\\"name\\":\\"Ada\\"}"
    }
  ]
}`,
  'template-invalid': `Invalid arguments for resource template "user-profile":
id: must be a number string`,
  'template-error': `Armature cannot start the MCP server: 1 problem in the decorated classes.
  1. ReportsServer.report: the URI template variable {quarter} has no property in ReportParams [ARM116]
     Fix: add \`@IsString() quarter!: string;\` to ReportParams (template variables arrive as strings)`,
  'bad-cursor': 'Invalid cursor: pass back the nextCursor of a previous page unchanged',
};

/** What each ShapesServer method must produce, in declaration order (the page's table is built from these). */
function expectedContents(): Record<string, unknown> {
  return {
    string: [{ uri: 'demo://string', mimeType: 'text/plain', text: 'hello' }],
    bytes: [{ uri: 'demo://bytes', blob: 'AQID' }],
    object: [{ uri: 'demo://object', mimeType: 'application/json', text: '{"theme":"dark"}' }],
    textContents: [{ uri: 'demo://text-contents', text: '# Notes', mimeType: 'text/markdown' }],
    blobContents: [{ uri: 'demo://blob-contents', blob: 'AQID', mimeType: 'application/octet-stream' }],
    several: [
      { uri: 'demo://several', text: 'part one' },
      { uri: 'demo://several#2', text: 'part two' },
    ],
    result: [{ uri: 'demo://result', text: 'as is' }],
  };
}

const URIS: Record<string, string> = {
  string: 'demo://string',
  bytes: 'demo://bytes',
  object: 'demo://object',
  textContents: 'demo://text-contents',
  blobContents: 'demo://blob-contents',
  several: 'demo://several',
  result: 'demo://result',
};

/** `| method returns | contents |`, one row per method of the return-types region. */
function RETURN_TABLE(): string {
  const source = readFileSync(new URL(import.meta.url), 'utf8');
  const start = source.indexOf('// #region return-types');
  const region = source.slice(start, source.indexOf('// #endregion', start));
  const expected = expectedContents();
  const rows = [...region.matchAll(/^ {2}(\w+)\(\) \{\n {4}return (.+?);(?: \/\/.*)?\n {2}\}$/gm)].map(([, name, returned]) => {
    if (!((name as string) in expected)) throw new Error(`no expected contents for ${name}`);
    return `| \`${returned}\` | \`${JSON.stringify(expected[name as string])}\` |`;
  });
  if (rows.length !== Object.keys(expected).length) throw new Error('a return-types method was not understood');
  return ['| The method returns | `contents` the client reads |', '| --- | --- |', ...rows].join('\n');
}
outputs['return-table'] = RETURN_TABLE();

async function fixed(): Promise<void> {
  const { client, close } = await connectInMemory(createMcpApp(SettingsServer));
  try {
    // #region client-read
    const { resources } = await client.listResources();
    const config = await client.readResource({ uri: 'config://app' });
    // config.contents: [{ uri: 'config://app', mimeType: 'application/json', text: '{"theme":"dark","language":"en"}' }]
    const logo = await client.readResource({ uri: 'images://logo.png' });
    // #endregion
    expectEqual(json({ resources }), JSON.parse(outputs['fixed-list'] as string), 'resources/list');
    expectEqual(
      config.contents,
      [{ uri: 'config://app', mimeType: 'application/json', text: '{"theme":"dark","language":"en"}' }],
      'config contents',
    );
    expectEqual(json(logo), JSON.parse(outputs['fixed-read'] as string), 'logo contents');

    const missing = await client.readResource({ uri: 'config://nope' }).catch((error: unknown) => error);
    expectEqual(
      [missing instanceof ProtocolError, (missing as ProtocolError).code, (missing as ProtocolError).message],
      [true, -32602, 'Resource not found: config://nope'],
      'unknown URI',
    );
  } finally {
    await close();
  }
}

async function returnTypes(): Promise<void> {
  const { client, close } = await connectInMemory(createMcpApp(ShapesServer));
  try {
    for (const [name, expected] of Object.entries(expectedContents())) {
      const read = await client.readResource({ uri: URIS[name] as string });
      expectEqual(json(read.contents), expected, `${name}() contents`);
    }
  } finally {
    await close();
  }

  @McpServer({ name: 'failing', version: '1.0.0' })
  class FailingServer {
    @Resource({ uri: 'demo://number', name: 'number' })
    number() {
      return 42;
    }
    @Resource({ uri: 'demo://nothing', name: 'nothing' })
    nothing() {}
    @Resource({ uri: 'demo://refused', name: 'refused' })
    refused(): string {
      throw new ToolError('not for you');
    }
    @Resource({ uri: 'demo://broken', name: 'broken' })
    broken(): string {
      throw new Error('disk on fire');
    }
  }
  const reported: string[] = [];
  for (const production of [false, true]) {
    const failing = await connectInMemory(
      createMcpApp(FailingServer, { exposeErrors: !production, onError: (_, info) => reported.push(info.tool) }),
    );
    try {
      const number = await failing.client.readResource({ uri: 'demo://number' }).catch((error: ProtocolError) => error);
      const broken = await failing.client.readResource({ uri: 'demo://broken' }).catch((error: ProtocolError) => error);
      if (!production) {
        expectEqual(
          [number.code, number.message],
          [-32603, 'a resource must return a string, bytes or contents, got number'],
          'an unsupported value',
        );
        expectEqual([broken.code, broken.message], [-32603, 'disk on fire'], 'a thrown error');
        const nothing = await failing.client.readResource({ uri: 'demo://nothing' }).catch((error: ProtocolError) => error);
        expectEqual(
          [nothing.code, nothing.message],
          [-32603, 'a resource must return a string, bytes or contents, got undefined'],
          'undefined',
        );
        const refused = await failing.client.readResource({ uri: 'demo://refused' }).catch((error: ProtocolError) => error);
        expectEqual([refused.code, refused.message], [-32603, 'not for you'], 'a ToolError');
      } else {
        expectEqual(
          [
            broken.code,
            /^Resource "demo:\/\/broken" failed unexpectedly; the error was logged on the server \(request \d+, error [0-9a-f]{8}\)$/.test(
              String(broken.message),
            ),
          ],
          [-32603, true],
          `production masks the message: ${broken.message}`,
        );
      }
    } finally {
      await failing.close();
    }
  }
  expectEqual(
    reported,
    ['FailingServer.number', 'FailingServer.broken', 'FailingServer.nothing', 'FailingServer.number', 'FailingServer.broken'],
    'onError (a ToolError is not reported)',
  );

  // Claims of the page: Context as the only parameter, advertised options, a custom JSON MIME type.
  @McpServer({ name: 'details', version: '1.0.0' })
  class DetailsServer {
    @Resource({
      uri: 'demo://request',
      name: 'request',
      size: 12,
      annotations: { audience: ['assistant'], priority: 0.5 },
      _meta: { source: 'docs' },
    })
    request(ctx: Context) {
      return `request ${String(ctx.requestId)}`;
    }
    @Resource({ uri: 'demo://api', name: 'api', mimeType: 'application/vnd.api+json' })
    api() {
      return { data: [] };
    }
  }
  const details = await connectInMemory(createMcpApp(DetailsServer));
  try {
    expectEqual(
      json((await details.client.listResources()).resources[0]),
      {
        uri: 'demo://request',
        name: 'request',
        size: 12,
        annotations: { audience: ['assistant'], priority: 0.5 },
        _meta: { source: 'docs' },
      },
      'advertised as given',
    );
    const read = await details.client.readResource({ uri: 'demo://request' });
    expectEqual(/^request \d+$/.test((read.contents[0] as { text: string }).text), true, 'the Context');
    expectEqual(
      (await details.client.readResource({ uri: 'demo://api' })).contents,
      [{ uri: 'demo://api', mimeType: 'application/vnd.api+json', text: '{"data":[]}' }],
      'JSON under the decorator MIME type',
    );
  } finally {
    await details.close();
  }
  @McpServer({ name: 'twice', version: '1.0.0' })
  class TwiceServer {
    @Resource({ uri: 'demo://same', name: 'a' })
    a() {
      return 'a';
    }
    @Resource({ uri: 'demo://same', name: 'b' })
    b() {
      return 'b';
    }
  }
  try {
    createMcpApp(TwiceServer);
    throw new Error('expected a build error');
  } catch (error) {
    if (!(error instanceof ArmatureBuildError)) throw error;
    expectEqual(error.problems[0]?.message, 'the resource URI "demo://same" is already served by TwiceServer.a', 'one URI, one method');
  }
}

async function templates(): Promise<void> {
  const { client, close } = await connectInMemory(createMcpApp(DirectoryServer));
  try {
    // #region client-template
    const { resourceTemplates } = await client.listResourceTemplates();
    const ada = await client.readResource({ uri: 'users://42/profile' });
    const invalid = await client.readResource({ uri: 'users://ada/profile' }).catch((error: ProtocolError) => error);
    // invalid.code === -32602; the message names the failing variable
    // #endregion
    expectEqual(json({ resourceTemplates }), JSON.parse(outputs['template-list'] as string), 'templates/list');
    expectEqual(json(ada), JSON.parse(outputs['template-read'] as string), 'template read');
    expectEqual([invalid.code, invalid.message], [-32602, outputs['template-invalid']], 'invalid variable');
    const unknown = await client.readResource({ uri: 'users://7/profile' }).catch((error: ProtocolError) => error);
    expectEqual([unknown.code, unknown.message], [-32004, 'No user 7'], 'McpError keeps its code');
    const { resources } = await client.listResources();
    expectEqual(resources, [], 'templates are not listed as resources');
  } finally {
    await close();
  }

  // params: () => Dto, the Context last, and the first matching template wins.
  class AnyPath {
    @IsString()
    path!: string;
  }
  @McpServer({ name: 'files', version: '1.0.0' })
  class FilesServer {
    @ResourceTemplate({ uriTemplate: 'files://{path}', name: 'first', params: () => AnyPath })
    first(params: unknown, ctx: Context) {
      return `first ${(params as AnyPath).path} ${typeof ctx.requestId}`;
    }
    @ResourceTemplate({ uriTemplate: 'files://{path}.txt', name: 'second' })
    second(params: AnyPath) {
      return `second ${params.path}`;
    }
  }
  const files = await connectInMemory(createMcpApp(FilesServer));
  try {
    const read = await files.client.readResource({ uri: 'files://notes.txt' });
    expectEqual((read.contents[0] as { text: string }).text, 'first notes.txt number', 'the first declared template serves it');
  } finally {
    await files.close();
  }
  try {
    createMcpApp(ReportsServer);
    throw new Error('expected a build error');
  } catch (error) {
    if (!(error instanceof ArmatureBuildError)) throw error;
    expectEqual(error.message, outputs['template-error'], 'template variable without a property');
  }
}

async function subscriptions(): Promise<void> {
  // #region notify
  const app = createMcpApp(SettingsServer);
  // Wherever the settings change (a file watcher, an admin tool, a database trigger):
  const settingsChanged = () => app.notifyResourceUpdated('config://app');
  // #endregion
  const subscribed = await connectInMemory(app);
  const bystander = await connectInMemory(app);
  try {
    expectEqual(subscribed.client.getServerCapabilities()?.resources, { subscribe: true, listChanged: true }, 'resources capability');
    const client = subscribed.client;
    // #region client-subscribe
    const updated: string[] = [];
    client.setNotificationHandler('notifications/resources/updated', (notification) => {
      updated.push(notification.params.uri); // read it again to get the new contents
    });
    await client.subscribeResource({ uri: 'config://app' });
    // #endregion
    const bystanderSaw: string[] = [];
    bystander.client.setNotificationHandler('notifications/resources/updated', (n) => {
      bystanderSaw.push(n.params.uri);
    });
    settingsChanged();
    app.notifyResourceUpdated('images://logo.png'); // nobody subscribed to it
    await sleep(50);
    expectEqual([updated, bystanderSaw], [['config://app'], []], 'only the subscribed connection hears about it');
    await client.unsubscribeResource({ uri: 'config://app' });
    settingsChanged();
    await sleep(50);
    expectEqual(updated, ['config://app'], 'nothing after unsubscribing');
    const unknown = (await client.subscribeResource({ uri: 'config://nope' }).catch((error: ProtocolError) => error)) as ProtocolError;
    expectEqual([unknown.code, unknown.message], [-32602, 'Resource not found: config://nope'], 'subscribing to an unknown URI');
  } finally {
    await subscribed.close();
    await bystander.close();
  }

  // 2026-07-28: subscriptions/listen over HTTP.
  const listener = await app.listenHttp({ port: 0 });
  const client = new Client({ name: 'my-client', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(new StreamableHTTPClientTransport(new URL(listener.url)));
  try {
    expectEqual(client.getNegotiatedProtocolVersion(), '2026-07-28', 'revision');
    // #region client-listen
    const updated: string[] = [];
    client.setNotificationHandler('notifications/resources/updated', (notification) => {
      updated.push(notification.params.uri);
    });
    const subscription = await client.listen({ resourceSubscriptions: ['config://app'], resourcesListChanged: true });
    // ... later: await subscription.close();
    // #endregion
    expectEqual(subscription.honoredFilter, { resourcesListChanged: true, resourceSubscriptions: ['config://app'] }, 'honored');
    settingsChanged();
    app.notifyResourceUpdated('images://logo.png');
    await sleep(100);
    expectEqual(updated, ['config://app'], 'the listen stream gets what it asked for');
    let listChanged = 0;
    client.setNotificationHandler('notifications/resources/list_changed', () => {
      listChanged++;
    });
    app.resources.disable('images://logo.png');
    app.resources.enable('images://logo.png');
    await sleep(100);
    expectEqual(listChanged, 2, 'list_changed on the listen stream');
    await subscription.close();
  } finally {
    await client.close();
    await listener.close();
  }
}

async function dynamic(): Promise<void> {
  const app = createMcpApp([SettingsServer, DirectoryServer]);
  const { client, close } = await connectInMemory(app);
  try {
    let changes = 0;
    client.setNotificationHandler('notifications/resources/list_changed', () => {
      changes++;
    });
    // #region dynamic
    app.resources.disable('images://logo.png'); // hidden from resources/list, reads answer "Resource not found"
    app.resourceTemplates.disable('user-profile'); // templates by name
    app.resources.enable('images://logo.png');
    app.resources.remove('config://app'); // gone for good
    app.resources.names(); // ['images://logo.png']: every registered key, enabled or not
    app.resources.isEnabled('images://logo.png'); // true
    // #endregion
    await sleep(50);
    expectEqual(changes, 4, 'one list_changed per change');
    expectEqual(
      (await client.listResources()).resources.map((r) => r.uri),
      ['images://logo.png'],
      'listed',
    );
    expectEqual((await client.listResourceTemplates()).resourceTemplates, [], 'template disabled');
    const gone = await client.readResource({ uri: 'config://app' }).catch((error: ProtocolError) => error.message);
    expectEqual(gone, 'Resource not found: config://app', 'removed');
    const disabledTemplate = await client.readResource({ uri: 'users://42/profile' }).catch((error: ProtocolError) => error.message);
    expectEqual(disabledTemplate, 'Resource not found: users://42/profile', 'disabled template');
    expectEqual([app.resources.names(), app.resources.isEnabled('images://logo.png')], [['images://logo.png'], true], 'names');
    app.resources.disable('images://logo.png');
    app.resources.disable('images://logo.png'); // no change, no notification
    app.notifyResourceListChanged();
    await sleep(50);
    expectEqual(changes, 6, 'a repeated disable sends nothing; notifyResourceListChanged sends one');
    let thrown = '';
    try {
      app.resources.enable('config://app');
    } catch (error) {
      thrown = (error as Error).message;
    }
    expectEqual(thrown, 'nothing named "config://app" is registered', 'a removed key is unknown');
  } finally {
    await close();
  }
}

async function pagination(): Promise<void> {
  // #region page-size
  const app = createMcpApp(ShapesServer, { pageSize: 3 }); // every list: tools, resources, templates, prompts
  // #endregion
  const { client, sent, close } = await connectInMemory(app);
  try {
    // #region client-pages
    const all = await client.listResources(); // no cursor: the v2 client follows nextCursor for you
    // A cursor (the nextCursor a page carried): that page only, with the next cursor if any.
    const pageAt = (cursor: string) => client.listResources({ cursor });
    const bad = await client.listResources({ cursor: 'not-a-cursor' }).catch((error: ProtocolError) => error);
    // bad.code === -32602
    // #endregion
    const cursor = (
      sent.find((m) => 'result' in m && (m.result as { nextCursor?: string }).nextCursor) as unknown as { result: { nextCursor: string } }
    ).result.nextCursor;
    const page = await pageAt(cursor);
    expectEqual(all.resources.length, 7, 'every page');
    const pages = sent
      .filter((m) => 'result' in m && Array.isArray((m.result as { resources?: unknown[] }).resources))
      .map((m) => {
        const result = (m as unknown as { result: { resources: unknown[]; nextCursor?: string } }).result;
        return { count: result.resources.length, next: typeof result.nextCursor };
      });
    expectEqual(
      pages.slice(0, 3),
      [
        { count: 3, next: 'string' },
        { count: 3, next: 'string' },
        { count: 1, next: 'undefined' },
      ],
      'three pages of at most 3',
    );
    expectEqual(
      [page.resources.map((r) => r.name), typeof page.nextCursor],
      [['text-contents', 'blob-contents', 'several'], 'string'],
      'an explicit cursor fetches one page',
    );
    expectEqual([bad.code, bad.message], [-32602, outputs['bad-cursor']], 'a bad cursor');
  } finally {
    await close();
  }

  // Every list is paged.
  @McpServer({ name: 'everything', version: '1.0.0' })
  class EverythingServer {
    @Tool({ description: 'a' })
    a() {}
    @Tool({ description: 'b' })
    b() {}
    @Prompt({ description: 'p' })
    p() {
      return 'p';
    }
    @Prompt({ description: 'q' })
    q() {
      return 'q';
    }
    @ResourceTemplate({ uriTemplate: 'one://{path}', name: 'one' })
    one(params: AnyParams) {
      return params.path;
    }
    @ResourceTemplate({ uriTemplate: 'two://{path}', name: 'two' })
    two(params: AnyParams) {
      return params.path;
    }
  }
  const paged = await connectInMemory(createMcpApp(EverythingServer, { pageSize: 1 }));
  try {
    expectEqual((await paged.client.listTools()).tools.length, 2, 'tools');
    expectEqual((await paged.client.listPrompts()).prompts.length, 2, 'prompts');
    expectEqual((await paged.client.listResourceTemplates()).resourceTemplates.length, 2, 'templates');
    const cursors = paged.sent.filter((m) => 'result' in m && typeof (m.result as { nextCursor?: unknown }).nextCursor === 'string');
    expectEqual(
      cursors.map((m) => Object.keys((m as { result: object }).result).filter((k) => k !== 'nextCursor')),
      [['tools'], ['prompts'], ['resourceTemplates']],
      'each list had a second page',
    );
  } finally {
    await paged.close();
  }
}

class AnyParams {
  @IsString()
  path!: string;
}

export async function main(): Promise<void> {
  expectEqual(RETURN_TABLE(), outputs['return-table'], 'return table');
  await fixed();
  await returnTypes();
  await templates();
  await subscriptions();
  await dynamic();
  await pagination();
}
