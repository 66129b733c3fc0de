import type { BuildProblem } from './build-error.js';

/** One message of the catalog: a stable code, what it is about, and how its text is made. */
export interface MessageDefinition<A extends readonly unknown[] = readonly never[]> {
  readonly code: string;
  /** One line for the error-code reference. */
  readonly title: string;
  readonly render: (...args: A) => { readonly message: string; readonly fix: string };
  /** Arguments that render a typical instance, for the generated reference page. */
  readonly example: A;
}

function define<A extends readonly unknown[]>(
  code: string,
  title: string,
  example: A,
  render: (...args: A) => { message: string; fix: string },
): MessageDefinition<A> {
  return Object.freeze({ code, title, render, example });
}

const DECORATOR = { tool: '@Tool', resource: '@Resource', resourceTemplate: '@ResourceTemplate', prompt: '@Prompt' } as const;
type Kind = keyof typeof DECORATOR;

/** How each kind of handler is called, for the messages about its parameters. */
const CALLED: Readonly<Record<Kind, { role: string; signature: string; count: number }>> = {
  tool: { role: 'tool', signature: '(input: MyDto, ctx: Context)', count: 2 },
  resource: { role: 'resource', signature: '(ctx: Context)', count: 1 },
  resourceTemplate: { role: 'resource template', signature: '(params: MyParams, ctx: Context)', count: 2 },
  prompt: { role: 'prompt', signature: '(args: MyArgs, ctx: Context)', count: 2 },
};

function lowerFirst(name: string): string {
  return name.charAt(0).toLowerCase() + name.slice(1);
}

function article(word: string): string {
  return /^[aeiou]/.test(word) ? 'an' : 'a';
}

/**
 * Every problem Armature reports at start-up, and the errors a call can get from Armature itself:
 * the one place their text is written. Codes: ARM1xx app and handlers, ARM2xx DTO parameters,
 * ARM3xx guards and interceptors, ARM4xx dependency injection, ARM5xx errors at call time.
 */
/** What each field of a server card must be (ARM187), as the SEP-2127 draft's schema says. */
export const SERVER_CARD_RULES = {
  name: 'a reverse-DNS name with one slash (3 to 200 characters), as package.json mcpName',
  description: '1 to 100 characters',
  version: 'an exact version such as 1.2.0, not a range',
  title: '1 to 100 characters',
  url: 'an http(s) URL',
  endpoint: 'the endpoint as an http(s) URL',
  repository: "{ url: an http(s) URL, source: e.g. 'github' }",
} as const;

export const MESSAGES = {
  noServerClass: define('ARM100', 'createMcpApp was given no server class', [] as const, () => ({
    message: 'no server class was given',
    fix: 'createMcpApp(MyServer) or createMcpApp([A, B])',
  })),
  notAClass: define('ARM101', 'createMcpApp was given something that is not a class', ['undefined'] as const, (found: string) => ({
    message: `expected a class, got ${found}`,
    fix: 'pass the @McpServer class itself',
  })),
  listedTwice: define('ARM102', 'a server class is listed twice', [] as const, () => ({
    message: 'this class is listed twice',
    fix: 'list each server class once',
  })),
  notDecorated: define('ARM103', 'a server class has no @McpServer', ['WeatherServer'] as const, (name: string) => ({
    message: 'the class is not decorated with @McpServer',
    fix: `@McpServer({ name: '${name.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase()}', version: '1.0.0' }) class ${name} { ... }`,
  })),
  staticHandler: define(
    'ARM104',
    'a handler decorator is on a static method',
    ['tool', 'forecast'] as const,
    (kind: Kind, method: string) => ({
      message: `${DECORATOR[kind]} is on a static method`,
      fix: `make ${method} an instance method (remove \`static\`)`,
    }),
  ),
  notAMethod: define('ARM105', 'a handler decorator is not on a method', ['tool'] as const, (kind: Kind) => ({
    message: `${DECORATOR[kind]} is not on a method`,
    fix: `put ${DECORATOR[kind]} on a method of the class`,
  })),
  invalidName: define(
    'ARM106',
    'a tool or prompt name is not 1-128 characters of A-Z a-z 0-9 _ . -',
    ['tool', 'get forecast', 'get_forecast'] as const,
    (kind: 'tool' | 'prompt', name: string, suggestion: string) => ({
      message: `the ${kind} name "${name}" is invalid: a name is 1-128 characters of A-Z a-z 0-9 _ . -`,
      fix: `${DECORATOR[kind]}({ name: '${suggestion}', ... })`,
    }),
  ),
  duplicateName: define(
    'ARM107',
    'two handlers share a tool name, prompt name, resource URI or URI template',
    ['tool', 'forecast', 'OtherServer.forecast'] as const,
    (kind: Kind, key: string, clash: string) => {
      switch (kind) {
        case 'resource':
          return { message: `the resource URI "${key}" is already served by ${clash}`, fix: 'give each resource its own URI' };
        case 'resourceTemplate':
          return { message: `the URI template "${key}" is already served by ${clash}`, fix: 'give each template its own pattern' };
        default:
          return {
            message: `the ${kind} name "${key}" is already used by ${clash}`,
            fix: `give one of them another name: ${DECORATOR[kind]}({ name: '${key}_2', ... })`,
          };
      }
    },
  ),
  toolDescriptionMissing: define('ARM108', 'a tool has no description', ['forecast'] as const, (name: string) => ({
    message: 'the tool has no description (the model reads it to decide when to call the tool)',
    fix: `@Tool({ description: 'What ${name} does and when to use it' })`,
  })),
  promptDescriptionMissing: define('ARM109', 'a prompt has no description', ['plan'] as const, (name: string) => ({
    message: 'the prompt has no description',
    fix: `@Prompt({ description: 'What ${name} is for' })`,
  })),
  bothInputs: define(
    'ARM110',
    'a tool names both `input` and `inputSchema` (or `output` and `outputSchema`)',
    ['input'] as const,
    (which: 'input' | 'output') =>
      which === 'input'
        ? {
            message: 'both `input` and `inputSchema` are given',
            fix: 'keep one: `input: () => Dto` (validated DTO) or `inputSchema` (raw JSON)',
          }
        : { message: 'both `output` and `outputSchema` are given', fix: 'keep one: `output: () => Dto` or `outputSchema` (raw JSON)' },
  ),
  rawSchemaNotObject: define(
    'ARM111',
    'a raw input or output schema does not describe an object',
    ['inputSchema'] as const,
    (option: string) => ({
      message: `\`${option}\` must describe an object (\`type: "object"\` at the root)`,
      fix: `${option}: { type: 'object', properties: { ... } }`,
    }),
  ),
  rawSchemaInvalid: define(
    'ARM112',
    'a raw input or output schema is not valid JSON Schema',
    ['inputSchema', 'schema is invalid: data/properties must be object'] as const,
    (option: string, reason: string) => ({
      message: `\`${option}\` is not a valid JSON Schema: ${reason}`,
      fix: 'correct the schema (JSON Schema 2020-12)',
    }),
  ),
  resourceUriInvalid: define('ARM113', 'a resource URI is not absolute', ['config.json'] as const, (uri: string) => ({
    message: `the resource URI "${uri}" is not an absolute URI (scheme:rest)`,
    fix: "@Resource({ uri: 'file:///path/to/thing', ... })",
  })),
  nameMissing: define(
    'ARM114',
    'a resource or resource template has no name',
    ['resource'] as const,
    (kind: 'resource' | 'resourceTemplate') =>
      kind === 'resource'
        ? { message: 'the resource has no name', fix: "@Resource({ uri, name: 'short-name', ... })" }
        : { message: 'the resource template has no name', fix: "@ResourceTemplate({ uriTemplate, name: 'short-name', ... })" },
  ),
  uriTemplateInvalid: define(
    'ARM115',
    'a URI template cannot be parsed',
    ['users://{id', 'Unclosed template expression'] as const,
    (template: string, reason: string) => ({
      message: `the URI template "${template}" is invalid: ${reason}`,
      fix: "@ResourceTemplate({ uriTemplate: 'users://{id}/profile', ... })",
    }),
  ),
  templateVariableUnbound: define(
    'ARM116',
    'a URI template variable has no property in the params DTO',
    ['quarter', 'ReportParams'] as const,
    (variable: string, dto: string) => ({
      message: `the URI template variable {${variable}} has no property in ${dto}`,
      fix: `add \`@IsString() ${variable}!: string;\` to ${dto} (template variables arrive as strings)`,
    }),
  ),
  templateWithoutParams: define(
    'ARM117',
    'a URI template has variables but the method takes no params DTO',
    [['id']] as const,
    (variables: readonly string[]) => ({
      message: `the URI template has variables (${variables.map((v) => `{${v}}`).join(', ')}) but the method takes no params DTO`,
      fix: `take them as a DTO: \`read(params: MyParams, ctx: Context)\` with \`class MyParams { @IsString() ${variables[0]}!: string }\``,
    }),
  ),
  promptArgumentNotString: define(
    'ARM118',
    'a prompt argument is not a string',
    ['BatchArgs', 'count', 'integer'] as const,
    (dto: string, property: string, type: string) => ({
      message: `${dto}.${property} is ${article(type)} ${type}, but prompt arguments are strings`,
      fix: `declare it \`@IsString() ${property}!: string;\` and convert inside the prompt (e.g. Number(args.${property}))`,
    }),
  ),
  completionMethodMissing: define(
    'ARM119',
    '@Complete names a method the server class does not have',
    ['suggestUnit', 'TypoArgs', 'units', 'TypoServer'] as const,
    (method: string, dto: string, property: string, server: string) => ({
      message: `@Complete('${method}') on ${dto}.${property} names no method of ${server}`,
      fix: `add \`${method}(value: string, context: CompletionRequestContext) { return [...] }\` to ${server}`,
    }),
  ),
  taskOptionInvalid: define('ARM120', "a tool's task option is not one of the allowed values", ['"always"'] as const, (found: string) => ({
    message: `task is ${found}; it must be 'optional' or 'required', or { support: 'optional' | 'required', retries } (or left out)`,
    fix: "@Tool({ description: '...', task: 'optional' })",
  })),
  headerParamInvalid: define(
    'ARM180',
    "a tool parameter's x-mcp-header declaration breaks a rule of SEP-2243",
    ['region: x-mcp-header is only allowed on a string, integer or boolean property (this one is "array")'] as const,
    (problem: string) => ({
      message: `the input schema's header parameters are invalid: ${problem}; clients would leave the tool out`,
      fix: "@Field({ description: '...', header: 'Region' }) on a string, integer or boolean property of the input DTO (a unique header name without spaces)",
    }),
  ),
  taskRetriesInvalid: define('ARM155', "a tool's task retries is not a whole number from 0 to 10", ['-1'] as const, (found: string) => ({
    message: `task.retries is ${found}; it must be a whole number from 0 (run once, the default) to 10`,
    fix: "@Tool({ description: '...', task: { support: 'required', retries: 1 } })",
  })),
  taskStartInvalid: define('ARM151', "a tool's task start is not one of the allowed values", ['"later"'] as const, (found: string) => ({
    message: `task.start is ${found}; it must be 'call' (the call is a task from the start, the default) or 'continueAsTask' (the handler decides, with ctx.continueAsTask())`,
    fix: "@Tool({ description: '...', task: { support: 'required', start: 'continueAsTask' } })",
  })),
  taskStartWithRetries: define(
    'ARM152',
    'a tool that goes on as a task at ctx.continueAsTask() also has task retries',
    [2] as const,
    (retries: number) => ({
      message: `task.start is 'continueAsTask' and task.retries is ${retries}: a run again on another instance starts the handler from the top, where the answers of the call's input_required rounds are gone and it cannot ask for them again`,
      fix: "drop retries (task: { support: 'required', start: 'continueAsTask' }), or use start: 'call' and let the task ask inside its run",
    }),
  ),
  sharedStateWithoutRequestStateKey: define(
    'ARM121',
    'a shared state is used without a requestStateKey',
    ['redis'] as const,
    (state: string) => ({
      message: `the ${state} state shares the app between instances, but no requestStateKey was given: each instance would sign 2026-07-28 requestState with its own random key, and an answer reaching another instance would be refused`,
      fix: 'createMcpApp(Server, { state, requestStateKey: process.env.MCP_REQUEST_STATE_KEY }) with the same secret (32 random bytes or more) on every instance',
    }),
  ),
  jsonSchemaValidatorMissing: define(
    'ARM122',
    'Ajv, which checks hand-written schemas, could not be loaded',
    ['inputSchema', "Cannot find module 'ajv/dist/2020.js'"] as const,
    (option: string, reason: string) => ({
      message: `\`${option}\` is checked with Ajv, which could not be loaded: ${reason}`,
      fix: 'install the dependencies of @armature/core again (it depends on ajv and ajv-formats); a bundle made by armature build runs next to the node_modules it was built from',
    }),
  ),
  schemaNeedsCodeGeneration: define(
    'ARM128',
    'a schema only Ajv checks, where code generation is refused (Cloudflare Workers)',
    ['`inputSchema`'] as const,
    (what: string) => ({
      message: `${what} is checked with Ajv, which compiles each schema to code; this runtime refuses code generation from strings (as Cloudflare Workers do), so it cannot be checked here`,
      fix: 'describe the input with a DTO whose properties each have one type (nested DTOs, arrays, @Matches and dates are checked without code generation), or serve this tool from Node.js, Bun or Deno',
    }),
  ),
  taskLimitInvalid: define(
    'ARM123',
    'a task limit is not a whole number of 1 or more',
    ['maxRunningTasksPerOwner', 'NaN'] as const,
    (limit: string, found: string) => ({
      message: `tasks.limits.${limit} is ${found}; it must be a whole number of 1 or more`,
      fix: `createMcpApp(Server, { tasks: { limits: { ${limit}: 16 } } }), or leave it out for its default`,
    }),
  ),
  taskInputTimeoutInvalid: define(
    'ARM150',
    'tasks.inputTimeoutMs is not a whole number of milliseconds, 1 or more',
    ['0'] as const,
    (found: string) => ({
      message: `tasks.inputTimeoutMs is ${found}; it must be a whole number of milliseconds, 1 or more (how long a task waits for the answer to a question)`,
      fix: 'createMcpApp(Server, { tasks: { inputTimeoutMs: 10 * 60_000 } }), or leave it out for its default (10 minutes)',
    }),
  ),
  portBusy: define('ARM124', 'the HTTP port is already in use', [3000, '127.0.0.1'] as const, (port: number, host: string) => ({
    message: `port ${port} on ${host} is already in use (EADDRINUSE)`,
    fix: `stop what listens there (another server, or this one started twice), or use another port: PORT=${port + 1} when the entry reads process.env.PORT, as generated projects do`,
  })),
  standardDecorators: define(
    'ARM127',
    'decorators were compiled as standard (TC39) decorators',
    ['@Tool'] as const,
    (decorator: string) => ({
      message: `${decorator} was called as a standard (TC39) decorator, which records no parameter types: Armature needs TypeScript's legacy decorators and their metadata`,
      fix: 'set "experimentalDecorators": true and "emitDecoratorMetadata": true in the tsconfig.json the compiler reads (Bun reads the one of the folder it runs in: start it there, or with `bun --cwd <project>`; Deno reads the one beside package.json)',
    }),
  ),
  appUiResourceInvalid: define(
    'ARM140',
    "a tool's ui.resource is not a ui:// URI",
    ['https://example.com/view.html'] as const,
    (found: string) => ({
      message: `ui.resource is ${found}; an MCP App is named by a ui:// URI`,
      fix: "@Tool({ description: '...', ui: { resource: 'ui://my-app/view.html' } })",
    }),
  ),
  appUiVisibilityInvalid: define(
    'ARM141',
    "a tool's ui.visibility is not a list of 'model' and 'app'",
    ['["user"]'] as const,
    (found: string) => ({
      message: `ui.visibility is ${found}; it must list 'model' (the model may call the tool) and/or 'app' (its app may), each once`,
      fix: "@Tool({ description: '...', ui: { resource: 'ui://my-app/view.html', visibility: ['app'] } }), or leave visibility out for both",
    }),
  ),
  appUiResourceMissing: define(
    'ARM142',
    "a tool's ui.resource is served by no resource of the app",
    ['ui://counter/view.html'] as const,
    (uri: string) => ({
      message: `ui.resource names ${uri}, which no resource of the app serves: a host would find no app to render`,
      fix: `serve it from a server class of the app: @AppResource({ uri: '${uri}', name: 'view' }) view() { return html; }`,
    }),
  ),
  appUiResourceNotApp: define(
    'ARM143',
    "a tool's ui.resource is served with another MIME type than MCP Apps'",
    ['ui://counter/view.html', 'CounterServer.view', 'text/html'] as const,
    (uri: string, where: string, found: string) => ({
      message: `ui.resource names ${uri}, which ${where} serves as ${found}: hosts render only text/html;profile=mcp-app`,
      fix: `declare ${where} with @AppResource({ uri: '${uri}', name: '...' }) (it sets the MIME type), or set mimeType: 'text/html;profile=mcp-app'`,
    }),
  ),
  appResourceUriInvalid: define('ARM144', 'an @AppResource URI is not a ui:// URI', ['file:///view.html'] as const, (uri: string) => ({
    message: `the MCP App URI "${uri}" is not a ui:// URI`,
    fix: "@AppResource({ uri: 'ui://my-app/view.html', name: 'view' })",
  })),
  decoratorBeforeReflectMetadata: define(
    'ARM125',
    'a decorator read metadata before @armature/core was loaded',
    ['file:///app/dist/dto.js:12:5'] as const,
    (where: string) => ({
      message: `Reflect.getMetadata is not a function (at ${where}): a decorator such as class-transformer's @Type ran before anything imported @armature/core, which loads reflect-metadata`,
      fix: "import '@armature/core' first in the entry file (src/main.ts), or at the top of the file that declares the DTO",
    }),
  ),
  mountedNameClash: define(
    'ARM130',
    'two handlers of a composed app are served under the same name or URI',
    ['tool', 'weather_forecast', 'WeatherServer.forecast', "mount('weather')", 'LegacyServer.weather_forecast', ''] as const,
    (kind: Kind, key: string, where: string, part: string, clash: string, clashPart: string) => {
      const side = (handler: string, mounted: string) => (mounted ? `${handler} (in ${mounted})` : handler);
      const what = kind === 'resource' ? 'resource URI' : kind === 'resourceTemplate' ? 'URI template' : `${kind} name`;
      return {
        message: `the ${what} "${key}" is served by both ${side(clash, clashPart)} and ${side(where, part)}`,
        fix:
          kind === 'tool' || kind === 'prompt'
            ? `mount one of them under another prefix (mount('other', Server)), or rename one: ${DECORATOR[kind]}({ name: '...' })`
            : "mount one of them under another prefix (mount('other', Server)), or give one another URI",
      };
    },
  ),
  mountPrefixInvalid: define('ARM131', 'a mount prefix is not 1-64 letters, digits and -', ['weather api'] as const, (prefix: string) => ({
    message: `the mount prefix "${prefix}" is invalid: a prefix is 1-64 letters, digits and -, starting with a letter or digit (it goes into tool names and URIs)`,
    fix: `mount('${prefix.replace(/[^A-Za-z0-9-]+/g, '-').replace(/^-+/, '') || 'part'}', Server)`,
  })),
  tagsInvalid: define('ARM132', 'tags are not a list of non-empty strings', ['[""]'] as const, (found: string) => ({
    message: `tags must be a list of non-empty strings, got ${found}`,
    fix: "tags: ['admin', 'billing']",
  })),
  mountedUriWithoutScheme: define(
    'ARM133',
    'a mounted resource template does not start with a literal scheme',
    ['{scheme}://x', "mount('weather')"] as const,
    (uri: string, part: string) => ({
      message: `"${uri}" cannot be served under ${part}: the prefix goes after the URI's scheme, and this one has none written out`,
      fix: "start the template with its scheme, e.g. 'files://{path}', or serve the class without mount()",
    }),
  ),
  remoteServerInvalid: define(
    'ARM134',
    'a remote server to mount cannot be used as given',
    ['it names neither a url nor a command', "mount('weather')"] as const,
    (reason: string, part: string) => ({
      message: `the remote server of ${part} cannot be used: ${reason}`,
      fix: "remoteServer({ url: 'https://host/mcp' }) for Streamable HTTP, or remoteServer({ command: 'node', args: ['server.js'] }) for stdio",
    }),
  ),
  remotePrefixShared: define(
    'ARM135',
    'a remote server is mounted under a prefix another part uses',
    ["mount('weather')"] as const,
    (part: string) => ({
      message: `${part} serves a remote server, whose names are only known once it answers, and another part uses the same prefix`,
      fix: 'give the remote server a prefix of its own',
    }),
  ),
  loggerOptionInvalid: define('ARM126', 'the logger option is not one Armature knows', ['logger is "yaml"'] as const, (found: string) => ({
    message: `${found}; it must be 'json', 'text', { format: 'json' | 'text', level: 'info' | 'warn' | 'error' }, a pino-like logger (info, warn and error methods) or false`,
    fix: "createMcpApp(Server, { logger: 'json' }), or pass your pino logger: createMcpApp(Server, { logger: pino(pino.destination(2)) })",
  })),

  telemetryOptionInvalid: define(
    'ARM185',
    'the telemetry option is not one Armature knows',
    ['telemetry is { detail: "all" }'] as const,
    (found: string) => ({
      message: `${found}; it must be true, false or { detail: 'handlers' | 'steps', metrics: an ArmatureMetricProducer }`,
      fix: "createMcpApp(Server, { telemetry: { detail: 'steps' } }) for a span per guard, validation and client request, or leave it out for the default",
    }),
  ),

  handlerTakesTwoDtos: define(
    'ARM145',
    'a handler method takes a second DTO parameter',
    ['tool', 'ShippingAddress'] as const,
    (kind: Kind, second: string) => ({
      message: `the second parameter is a DTO class (${second}), but ${article(CALLED[kind].role)} ${CALLED[kind].role} receives its arguments as one DTO, then the Context: it would receive the Context, not a ${second}`,
      fix: `put every argument in the first DTO (a nested DTO for ${second}: \`@ValidateNested() @Type(() => ${second}) ${lowerFirst(second)}!: ${second}\`) and take ${CALLED[kind].signature}`,
    }),
  ),
  contextNotLast: define(
    'ARM146',
    'the Context is not the last parameter of a handler method',
    ['tool', 1, 2] as const,
    (kind: Kind, position: number, count: number) => ({
      message: `the Context is parameter ${position} of ${count}, but ${article(CALLED[kind].role)} ${CALLED[kind].role} is called with ${CALLED[kind].signature}: the Context must come last`,
      fix: `take ${CALLED[kind].signature}`,
    }),
  ),
  handlerParameterUnserved: define(
    'ARM147',
    'a handler method declares a parameter Armature never passes',
    ['tool', 'parameter 2 is a string', 2] as const,
    (kind: Kind, found: string, position: number) => ({
      message: `${found}, but ${article(CALLED[kind].role)} ${CALLED[kind].role} is called with ${CALLED[kind].signature}: parameter ${position} would ${position > CALLED[kind].count ? 'always be undefined' : 'receive the Context'}`,
      fix: `take ${CALLED[kind].signature}, and read everything else from ${kind === 'resource' ? 'the Context' : 'the DTO or the Context'}`,
    }),
  ),
  contextFirstWithInput: define(
    'ARM148',
    'a handler method takes the Context first but is given an input',
    ['tool', 'input'] as const,
    (kind: Kind, option: string) => ({
      message: `the first parameter is the Context, but the method is given ${option === 'inputSchema' ? 'a hand-written inputSchema' : `a DTO by \`${option}\``}: ${article(CALLED[kind].role)} ${CALLED[kind].role} is called with ${CALLED[kind].signature}, so the Context would receive the arguments`,
      fix: `take ${CALLED[kind].signature}`,
    }),
  ),

  extensionNotDefined: define(
    'ARM160',
    'an entry of extensions was not made by defineExtension',
    ['a string ("echo")'] as const,
    (found: string) => ({
      message: `extensions lists ${found}, which is not an extension`,
      fix: "export const echo = defineExtension({ id: 'com.example/echo', methods: { ... } }); createMcpApp(Server, { extensions: [echo] })",
    }),
  ),
  extensionIdInvalid: define(
    'ARM161',
    "an extension's id is not a reverse-DNS name with one slash",
    ['"echo"'] as const,
    (found: string) => ({
      message: `the extension id ${found} is not a reverse-DNS prefix and a name joined by one slash`,
      fix: "defineExtension({ id: 'com.example/echo', ... }): a domain you control, reversed, then a slash and the extension's name",
    }),
  ),
  extensionIdTaken: define(
    'ARM162',
    'two extensions have the same id, or one takes an id Armature serves itself',
    ['com.example/echo', 'the extension listed before it'] as const,
    (id: string, other: string) => ({
      message: `the extension id ${id} is already taken by ${other}`,
      fix: 'give each extension its own id, and list an extension once',
    }),
  ),
  extensionMethodNameInvalid: define(
    'ARM163',
    "an extension method's name is not a JSON-RPC request method name",
    ['echo say'] as const,
    (name: string) => ({
      message: `the method name "${name}" is not a request method name: it must be 1-128 characters of letters, digits, _ . - and /, with at least one /, and not start with notifications/`,
      fix: "methods: { 'echo/say': { handle: (params, ctx) => ({ ... }) } }",
    }),
  ),
  extensionMethodTaken: define(
    'ARM164',
    "an extension method is named like a built-in method or another extension's",
    ['tools/list', 'MCP itself'] as const,
    (name: string, owner: string) => ({
      message: `the method "${name}" is already served by ${owner}`,
      fix: "name the method after the extension (e.g. 'echo/say' for com.example/echo), so that no other method has its name",
    }),
  ),
  extensionMemberInvalid: define(
    'ARM165',
    'a member of an extension has the wrong type (a method, its params, or a hook)',
    ["methods['echo/say'].handle", 'a function', 'undefined'] as const,
    (member: string, expected: string, found: string) => ({
      message: `${member} is ${found}; it must be ${expected}`,
      fix: "defineExtension({ id: 'com.example/echo', methods: { 'echo/say': { params: SayParams, handle: (params, ctx) => ({ said: params.text }) } } })",
    }),
  ),
  extensionSettingsInvalid: define(
    'ARM166',
    "an extension's settings are not a plain JSON object",
    ['an array'] as const,
    (found: string) => ({
      message: `settings is ${found}; it is advertised as capabilities.extensions[id], which must be a JSON object`,
      fix: "defineExtension({ id: 'com.example/echo', settings: { version: 1 } }), or leave settings out to advertise {}",
    }),
  ),
  extensionSetupFailed: define('ARM167', "an extension's setup threw", ['ENOENT: no such file'] as const, (reason: string) => ({
    message: `setup threw: ${reason}`,
    fix: 'report what is wrong with host.problem(message, fix) instead of throwing, or fix the cause the message names',
  })),
  extensionProblem: define(
    'ARM168',
    'an extension reported a start-up problem',
    ['the folder ./skills does not exist', "skills({ dirs: ['./skills'] }) with a folder that exists"] as const,
    (message: string, fix: string) => ({ message, fix }),
  ),
  extensionTargetMissing: define(
    'ARM175',
    "an extension's setup changes a tool or resource the app does not serve",
    ['tool', 'weather'] as const,
    (kind: 'tool' | 'resource', name: string) => ({
      message: `the app serves no ${kind} ${JSON.stringify(name)} to change`,
      fix: `change only what the app serves: check host.${kind === 'tool' ? 'tool(name)' : 'resourceOf(uri)'} first, or name it as the app serves it (a mounted part's under its prefix)`,
    }),
  ),
  extensionChangeInvalid: define(
    'ARM176',
    "an extension's change of a tool or resource is not what it must be",
    ['_meta', 'a plain JSON object', 'an array'] as const,
    (member: string, expected: string, found: string) => ({
      message: `${member} is ${found}; it must be ${expected}`,
      fix: "host.extendTool('weather', { _meta: { 'com.example/echo': { shown: true } }, onlyForExtensionClients: false })",
    }),
  ),

  nestedDefaultNotObjects: define(
    'ARM211',
    "a nested DTO property's default is not an object (a list of objects for an array)",
    ['Order', 'items', 'CartLine', true] as const,
    (dto: string, property: string, nested: string, each: boolean) => ({
      message: `the default of ${dto}.${property} is not ${each ? 'a list of objects' : 'an object'}, so it cannot be given as ${each ? 'the list of' : 'the'} ${nested} a call would get`,
      fix: `initialise it with what a client would send, as plain objects or ${nested} instances: ${property}${each ? `: ${nested}[] = [{ ... }]` : `: ${nested} = { ... }`}; or leave it out and add @IsOptional()`,
    }),
  ),
  nestedDefaultInvalid: define(
    'ARM212',
    "a nested DTO property's default does not fit the nested DTO",
    ['Order', 'items', 'items.0.quantity: must be a number'] as const,
    (dto: string, property: string, issues: string) => ({
      message: `the default of ${dto}.${property} does not fit its DTO (${issues}), so every call leaving ${property} out would be refused`,
      fix: `correct the default of ${dto}.${property} so that a client could send it as it is`,
    }),
  ),

  rateLimitErrorInvalid: define(
    'ARM186',
    'the rateLimitError option is not a shape Armature knows',
    ['"sep3304"'] as const,
    (found: string) => ({
      message: `rateLimitError is ${found}; it must be 'armature' (the default) or 'sep-3304'`,
      fix: "createMcpApp(Server, { rateLimitError: 'sep-3304' }) for SEP-3304's -32023 with data.retryAfterMs, or leave it out for -32029",
    }),
  ),

  serverCardInvalid: define(
    'ARM187',
    'a server card field (serverCard, @McpServer) is one the SEP-2127 draft refuses',
    ['name', '"weather"', SERVER_CARD_RULES.name] as const,
    (field: string, value: string, requirement: string) => ({
      message: `the server card's ${field} is ${value}; it must be ${requirement}`,
      fix: "listenHttp({ serverCard: { name: 'io.github.acme/weather', description: 'Forecasts for any city' } }), with name and description from package.json (mcpName, description)",
    }),
  ),

  noParamMetadata: define(
    'ARM200',
    'no decorator metadata was emitted for a handler method',
    ['tool', 'input'] as const,
    (kind: Kind, option: string) => ({
      message: 'no decorator metadata was emitted for this method, so its DTO parameter type is unknown (tsx and esbuild emit none)',
      fix: `compile with tsc or vite-node (or run on Bun or Deno, see Runtimes) with \`"emitDecoratorMetadata": true\`, or name the DTO: ${DECORATOR[kind]}({ ${option}: () => MyDto, ... })`,
    }),
  ),
  paramNotReflected: define(
    'ARM201',
    "the DTO parameter's type did not reflect (interface, type alias or `import type`)",
    ['tool', 'input'] as const,
    (kind: Kind, option: string) => ({
      message: "the first parameter's type did not reflect (it is an interface, a type alias, or imported with `import type`)",
      fix: `declare the DTO as a class and import it as a value (\`import { MyDto }\`, not \`import type\`), or ${DECORATOR[kind]}({ ${option}: () => MyDto, ... }). If the parameter is the Context, import Context as a value too`,
    }),
  ),
  paramPrimitive: define('ARM202', 'the first parameter is a primitive, not a DTO class', ['string'] as const, (type: string) => ({
    message: `the first parameter is a ${type}, but arguments are an object`,
    fix: 'wrap the arguments in a DTO class: `class MyInput { @IsString() value!: string }` and take `(input: MyInput, ctx: Context)`',
  })),
  dtoThunkInvalid: define('ARM203', 'a DTO option is not a function returning a class', ['input'] as const, (option: string) => ({
    message: `\`${option}\` must be a function returning the DTO class`,
    fix: `${option}: () => MyDto`,
  })),
  elicitationDtoUnsupported: define(
    'ARM204',
    'a DTO given to ctx.elicit has a property a form cannot ask for',
    ['Address', 'street', 'a nested DTO'] as const,
    (dto: string, property: string, what: string) => ({
      message: `${dto}.${property} is ${what}; a form can only ask for strings, numbers, booleans and enums`,
      fix: `ask for ${dto}.${property} with a separate elicitation, or make it a string, number, boolean or enum property`,
    }),
  ),

  dtoWithoutValidators: define('ARM205', 'a DTO class has no class-validator decorators', ['Untyped'] as const, (dto: string) => ({
    message: `DTO ${dto} has no class-validator decorators, so no argument could be validated`,
    fix: 'decorate each property, e.g. `@IsString() name!: string;` (use `@Allow()` to accept any value)',
  })),
  fieldWithoutValidator: define(
    'ARM206',
    'a DTO property has @Field but no validator',
    ['NoteDto', 'color', '@IsString()'] as const,
    (dto: string, property: string, validator: string) => ({
      message: `${dto}.${property} has @Field but no class-validator decorator, so it would be rejected as unknown`,
      fix: `add \`${validator}\` to ${dto}.${property} (or \`@Allow()\` for any value)`,
    }),
  ),
  initialValueWithoutValidator: define(
    'ARM207',
    'a DTO property has an initial value but no validator',
    ['NoteDto', 'pinned', '@IsBoolean()'] as const,
    (dto: string, property: string, validator: string) => ({
      message: `${dto}.${property} has an initial value but no class-validator decorator, so every call would be refused for it`,
      fix: `add \`@IsOptional() ${validator}\` to ${dto}.${property}, or move it out of the DTO`,
    }),
  ),
  propertyTypeUnknown: define(
    'ARM208',
    "a DTO property's type cannot be known",
    ['NoteDto', 'tags'] as const,
    (dto: string, property: string) => ({
      message: `the type of ${dto}.${property} is unknown: no type validator, and no design:type metadata (the file was compiled without emitDecoratorMetadata, e.g. by tsx/esbuild, or evaluated before reflect-metadata was loaded)`,
      fix: "add a type validator such as @IsString(), and import 'reflect-metadata' (or @armature/core) before your DTO files",
    }),
  ),
  nestedWithoutType: define(
    'ARM209',
    '@ValidateNested() without @Type(() => Dto)',
    ['ShipInput', 'to'] as const,
    (dto: string, property: string) => ({
      message: `${dto}.${property} has @ValidateNested() but no @Type(() => SomeDto), so its value would stay a plain object`,
      fix: `add \`@Type(() => YourNestedDto)\` (from class-transformer) to ${dto}.${property}`,
    }),
  ),
  dateWithoutType: define(
    'ARM210',
    '@IsDate() without @Type(() => Date)',
    ['NoteDto', 'due'] as const,
    (dto: string, property: string) => ({
      message: `${dto}.${property} has @IsDate() but no @Type(() => Date), so the ISO string a client sends would never become a Date`,
      fix: `add \`@Type(() => Date)\` (from class-transformer) to ${dto}.${property}`,
    }),
  ),

  guardWithoutCanActivate: define('ARM300', 'a guard has no canActivate method', ['AdminOnly'] as const, (label: string) => ({
    message: `the guard ${label} has no canActivate method`,
    fix: 'implement Guard: `canActivate(context) { return true; }`',
  })),
  interceptorWithoutIntercept: define('ARM301', 'an interceptor has no intercept method', ['Timing'] as const, (label: string) => ({
    message: `the interceptor ${label} has no intercept method`,
    fix: 'implement Interceptor: `intercept(context, next) { return next(); }`',
  })),
  invalidScope: define(
    'ARM302',
    '@RequireScopes was given something that is not an OAuth scope',
    ['repo write'] as const,
    (scope: string) => ({
      message: `"${scope}" is not an OAuth scope (one word, no spaces)`,
      fix: "@RequireScopes('repo:write')",
    }),
  ),
  providerConstructionFailed: define(
    'ARM303',
    'a guard or interceptor class the container does not provide could not be constructed',
    ['guard', 'AuditGuard', 'missing API key'] as const,
    (role: 'guard' | 'interceptor', label: string, reason: string) => ({
      message: `the ${role} ${label} is not provided by the container and constructing it with \`new ${label}()\` failed: ${reason}`,
      fix: `register ${label} with the container (@Service() or @RequestScoped() with typedi), or pass an instance: @Use${role === 'guard' ? 'Guards' : 'Interceptors'}(new ${label}(...))`,
    }),
  ),
  invalidRateLimit: define(
    'ARM304',
    'a rate limit (@RateLimit, rateLimits, rateLimit) has a value it cannot count by',
    ['@RateLimit', 'windowMs', '1500', 'a whole number of seconds in ms (1000 or more): the shared store counts whole seconds'] as const,
    (source: string, field: string, value: string, requirement: string) => ({
      message: `${source} has ${field} ${value}; it must be ${requirement}`,
      fix:
        source === '@RateLimit'
          ? "@RateLimit({ limit: 10, windowMs: 60_000, by: ['principal', 'tool'] })"
          : `${source}: { limit: 10, windowMs: 60_000${source === 'rateLimit' || source === 'auth.failedAuthLimit' ? '' : ", by: ['principal', 'tool']"} }`,
    }),
  ),

  noConstructorMetadata: define('ARM400', 'no decorator metadata for an injected constructor', [2] as const, (count: number) => ({
    message: `the constructor takes ${count} parameter(s) but no decorator metadata was emitted for it (tsx and esbuild emit none), so nothing could be injected`,
    fix: 'compile with tsc or vite-node (or run on Bun or Deno, see Runtimes) with "emitDecoratorMetadata": true',
  })),
  unknownService: define(
    'ARM401',
    'an injected class is not known to the container',
    ['WeatherApi', 'parameter 0 of WeatherServer'] as const,
    (name: string, usedBy: string) => ({
      message: `${name} (${usedBy}) is not known to the container, so it cannot be injected`,
      fix: 'decorate it with @Service() (one instance for the app) or @RequestScoped() (one per call)',
    }),
  ),
  singletonNeedsRequest: define(
    'ARM402',
    'a singleton injects something that exists only per request',
    ['Session', 'parameter 0 of ProfileServer', "the request's Context"] as const,
    (name: string, usedBy: string, what: string) => ({
      message: `${name} (${usedBy}) injects ${what} but is a singleton`,
      fix: `mark ${name} @RequestScoped() so each call gets its own instance`,
    }),
  ),
  containerPrepareFailed: define('ARM403', "the DI container's prepare() failed", ['boom'] as const, (reason: string) => ({
    message: `the DI container refused to start: ${reason}`,
    fix: 'see the container adapter named in the message; prepare() should return or throw ArmatureBuildError problems',
  })),
} as const;

/** A start-up problem at `where`, from the catalog. */
export function problem<A extends readonly unknown[]>(definition: MessageDefinition<A>, where: string, ...args: NoInfer<A>): BuildProblem {
  const { message, fix } = definition.render(...args);
  return { code: definition.code, where, message, fix };
}

/** One entry of the error-code reference. */
export interface ErrorCodeInfo {
  readonly code: string;
  /** What the code is about. */
  readonly title: string;
  /** A typical message with this code, and its fix. */
  readonly example: { readonly message: string; readonly fix: string };
}

/**
 * Every code Armature's start-up problems carry, with a typical message and fix: what
 * docs/error-codes.md lists, for tools that want to link a problem to its explanation.
 *
 * @example
 * ```ts
 * const known = new Map(errorCodes().map((entry) => [entry.code, entry.title]));
 * ```
 */
export function errorCodes(): ErrorCodeInfo[] {
  return Object.values(MESSAGES).map((definition) => ({
    code: definition.code,
    title: definition.title,
    example: (definition.render as (...args: readonly unknown[]) => { message: string; fix: string })(...definition.example),
  }));
}
