import { readFileSync } from 'node:fs';
import {
  ArmatureBuildError,
  Context,
  createMcpApp,
  DEFAULT_ARGUMENT_LIMITS,
  dtoToJsonSchema,
  Field,
  formatIssues,
  McpServer,
  Tool,
  validateDto,
} from '@armature/core';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  Equals,
  IsArray,
  IsEnum,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  Length,
  Matches,
  Max,
  Min,
  ValidateNested,
} from 'class-validator';
import { connectInMemory, expectEqual, json } from './support/check.js';
import { MappingDto } from './tools-and-dtos/mapping.dto.js';

// #region search-input
export enum IssueState {
  Open = 'open',
  Closed = 'closed',
}

export class SearchIssuesInput {
  @Field('owner/name of the repository')
  @Matches(/^[\w.-]+\/[\w.-]+$/)
  repo!: string;

  @Field('Words to look for in titles and bodies')
  @IsString()
  @Length(1, 256)
  query!: string;

  @Field('Most issues to return')
  @IsInt()
  @Min(1)
  @Max(50)
  limit: number = 10;

  @IsEnum(IssueState)
  state: IssueState = IssueState.Open;

  @Field('Only issues carrying all of these labels')
  @IsOptional()
  @IsString({ each: true })
  @ArrayMaxSize(10)
  labels?: string[];
}
// #endregion

// #region search-tool
@McpServer({ name: 'issues', version: '1.0.0' })
export class IssuesServer {
  @Tool({
    name: 'search_issues',
    title: 'Search issues',
    description: 'Search GitHub issues in a repository. Use it before filing a new issue.',
    annotations: { readOnlyHint: true, openWorldHint: true },
  })
  searchIssues(input: SearchIssuesInput) {
    // A SearchIssuesInput instance: `limit` and `state` hold their defaults when the client omitted them.
    return `Searching ${input.repo} for "${input.query}": ${input.state} issues, at most ${input.limit}`;
  }
}
// #endregion

// #region nested
export class Address {
  @IsString()
  street!: string;

  @Field('ISO 3166-1 alpha-2 code')
  @Length(2, 2)
  country!: string;
}

export class CreateCustomerInput {
  @IsString()
  name!: string;

  @ValidateNested()
  @Type(() => Address)
  address!: Address;

  @IsOptional()
  @ValidateNested({ each: true })
  @Type(() => Address)
  @ArrayMaxSize(3)
  deliveryAddresses?: Address[];
}

@McpServer({ name: 'customers', version: '1.0.0' })
export class CustomersServer {
  @Tool({ description: 'Create a customer' })
  createCustomer(input: CreateCustomerInput) {
    // input.address is an Address instance, and so is each delivery address.
    return { created: input.name, country: input.address.country, deliveries: input.deliveryAddresses?.length ?? 0 };
  }
}
// #endregion

// #region header-params
export class ForecastInput {
  @Field({ description: 'Region whose servers answer', header: 'Region' })
  @IsString()
  region!: string;

  @Field('City to forecast')
  @IsString()
  city!: string;
}

@McpServer({ name: 'forecasts', version: '1.0.0' })
export class ForecastServer {
  @Tool({ description: 'Forecast for a city' })
  forecast(input: ForecastInput) {
    return `Sunny in ${input.city} (served in ${input.region})`;
  }
}
// #endregion

// #region raw-schema
@McpServer({ name: 'calculator', version: '1.0.0' })
export class CalculatorServer {
  @Tool({
    description: 'Add two numbers',
    inputSchema: {
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number', default: 0 } },
      required: ['a'],
      additionalProperties: false,
    },
    outputSchema: {
      type: 'object',
      properties: { sum: { type: 'number' } },
      required: ['sum'],
    },
  })
  add(input: { a: number; b: number }) {
    // Plain JSON, validated against inputSchema with its defaults applied (b is 0 when omitted).
    return { sum: input.a + input.b };
  }
}
// #endregion

// #region output-dto
export class PriceInput {
  @IsString()
  sku!: string;
}

export class Price {
  @IsString()
  sku!: string;

  @IsInt()
  cents!: number;

  @Equals('EUR')
  currency!: string;
}

@McpServer({ name: 'prices', version: '1.0.0' })
export class PricesServer {
  private readonly catalogue = new Map([['A-1', { sku: 'A-1', cents: 1250, currency: 'EUR', supplier: 'internal' }]]);

  @Tool({ description: 'Price of a product', output: () => Price })
  getPrice(input: PriceInput) {
    // Checked against Price before it is sent; members Price does not declare (supplier) are dropped.
    return this.catalogue.get(input.sku);
  }
}
// #endregion

// #region limits
export class TagsInput {
  @IsString({ each: true })
  tags!: string[];
}

@McpServer({ name: 'tagging', version: '1.0.0' })
export class TaggingServer {
  @Tool({ description: 'Tag a document', limits: { maxArrayLength: 3 } })
  tag(input: TagsInput) {
    return input.tags.join(', ');
  }
}

// App-wide limits apply to every tool; a tool's own `limits` win.
const tagging = createMcpApp(TaggingServer, { limits: { maxDepth: 8, maxStringLength: 10_000 } });
// #endregion

// #region naming
@McpServer({ name: 'search', version: '1.0.0' })
export class SearchServer {
  @Tool({ name: 'search issues', description: 'Search issues' })
  searchIssues() {}

  @Tool({ description: 'Look up one issue' })
  lookup() {}
}

@McpServer({ name: 'lookup', version: '1.0.0' })
export class LookupServer {
  @Tool({ description: 'Look up one user' })
  lookup() {}
}
// #endregion

export const outputs: Record<string, string> = {
  'header-mismatch': `400 -32020 Bad Request: the request headers and body disagree for tool "forecast": Mcp-Param-Region does not carry the value the arguments give. Send Mcp-Param-Region with the argument's value (=?base64?...?= for text that is not plain ASCII)`,
  'validate-dto-valid': `{
  "ok": true,
  "value": { "limit": 10, "state": "open", "repo": "acme/rockets", "query": "launch" }
}`,
  'validate-dto-issues': String.raw`[
  { "path": "repo", "message": "must match /^[\\w.-]+\\/[\\w.-]+$/ regular expression" },
  { "path": "query", "message": "must be longer than or equal to 1 characters" },
  { "path": "limit", "message": "must not be greater than 50" }
]`,
  'validate-dto-invalid': String.raw`Invalid search:
repo: must match /^[\w.-]+\/[\w.-]+$/ regular expression
query: must be longer than or equal to 1 characters
limit: must not be greater than 50`,
  'search-schema': `{
  "type": "object",
  "properties": {
    "repo": {
      "type": "string",
      "pattern": "^[\\\\w.-]+\\\\/[\\\\w.-]+$",
      "description": "owner/name of the repository"
    },
    "query": {
      "minLength": 1,
      "maxLength": 256,
      "type": "string",
      "description": "Words to look for in titles and bodies"
    },
    "limit": {
      "maximum": 50,
      "minimum": 1,
      "type": "integer",
      "description": "Most issues to return",
      "default": 10
    },
    "state": {
      "enum": [
        "open",
        "closed"
      ],
      "type": "string",
      "default": "open"
    },
    "labels": {
      "maxItems": 10,
      "type": "array",
      "items": {
        "type": "string"
      },
      "description": "Only issues carrying all of these labels"
    }
  },
  "required": [
    "repo",
    "query"
  ],
  "additionalProperties": false
}`,
  'shape-errors': `Invalid arguments for tool "search_issues":
repo: is required
extra: unknown property; remove it
query: must be string
limit: must be integer`,
  'invalid-arguments': `Invalid arguments for tool "search_issues":
repo: must match /^[\\w.-]+\\/[\\w.-]+$/ regular expression
query: must be longer than or equal to 1 characters
limit: must not be greater than 50
state: must be one of the following values: open, closed`,
  'no-conversion': `Invalid arguments for tool "search_issues":
limit: must be integer`,
  'nested-schema': `{
  "type": "object",
  "properties": {
    "name": {
      "type": "string"
    },
    "address": {
      "$ref": "#/$defs/Address"
    },
    "deliveryAddresses": {
      "maxItems": 3,
      "type": "array",
      "items": {
        "$ref": "#/$defs/Address"
      }
    }
  },
  "required": [
    "name",
    "address"
  ],
  "additionalProperties": false,
  "$defs": {
    "Address": {
      "type": "object",
      "properties": {
        "street": {
          "type": "string"
        },
        "country": {
          "minLength": 2,
          "maxLength": 2,
          "type": "string",
          "description": "ISO 3166-1 alpha-2 code"
        }
      },
      "required": [
        "street",
        "country"
      ],
      "additionalProperties": false
    }
  }
}`,
  'nested-errors': `Invalid arguments for tool "createCustomer":
address.country: must be shorter than or equal to 2 characters
deliveryAddresses.1.country: must be longer than or equal to 2 characters`,
  'raw-errors': `Invalid arguments for tool "add":
c: unknown property; remove it
a: must be number`,
  'output-mismatch': `Invalid result from tool "getPrice" (it does not match its output schema):
expected an object matching the output schema, got nothing (undefined)`,
  'limits-error': `Invalid arguments for tool "tag":
tags: array has more than the limit of 3 items`,
  'naming-errors': `Armature cannot start the MCP server: 2 problems in the decorated classes.
  1. SearchServer.searchIssues: the tool name "search issues" is invalid: a name is 1-128 characters of A-Z a-z 0-9 _ . - [ARM106]
     Fix: @Tool({ name: 'search_issues', ... })
  2. LookupServer.lookup: the tool name "lookup" is already used by SearchServer.lookup [ARM107]
     Fix: give one of them another name: @Tool({ name: 'lookup_2', ... })`,
  'mapping-table': mappingTable(),
};

/** The DTO -> JSON Schema table of tools-and-dtos.md, one row per line of mapping.dto.ts, as Armature writes it. */
function mappingTable(): string {
  const source = readFileSync(new URL('./tools-and-dtos/mapping.dto.ts', import.meta.url), 'utf8');
  const body = source.slice(source.indexOf('export class MappingDto {'));
  const { schema } = dtoToJsonSchema(MappingDto);
  const properties = schema.properties as Record<string, unknown>;
  const required = new Set(schema.required as string[]);
  const rows = [...body.matchAll(/^ {2}(@.*?\) (\w+)[!?]?(?:: [^=;]+)?(?: = [^;]+)?);$/gm)].map(([, declaration, name]) => {
    const property = properties[name as string];
    if (property === undefined) throw new Error(`mapping.dto.ts: no schema for ${name}`);
    // A `|` inside a cell, even in a code span, ends the cell in GitHub's tables unless escaped.
    const cell = (text: string) => `\`${text.replaceAll('|', '\\|')}\``;
    return `| ${cell(declaration as string)} | ${cell(JSON.stringify(property))} | ${required.has(name as string) ? 'yes' : 'no'} |`;
  });
  if (rows.length !== Object.keys(properties).length) throw new Error('mapping.dto.ts: a property line was not understood');
  return ['| Property | Its JSON Schema | Required |', '| --- | --- | --- |', ...rows].join('\n');
}

function buildError(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof ArmatureBuildError) return error.message;
    throw error;
  }
  throw new Error('expected an ArmatureBuildError');
}

type CallResult = Awaited<ReturnType<Awaited<ReturnType<typeof connectInMemory>>['client']['callTool']>>;
const textOf = (result: CallResult) => (result.content as Array<{ text?: string }>).map((block) => block.text).join('\n');

async function searchIssues(): Promise<void> {
  const app = createMcpApp(IssuesServer);
  const { client, close } = await connectInMemory(app);
  try {
    const [tool] = (await client.listTools()).tools;
    expectEqual(
      [tool?.name, tool?.title, tool?.annotations],
      ['search_issues', 'Search issues', { readOnlyHint: true, openWorldHint: true }],
      'descriptor',
    );
    expectEqual(JSON.stringify(app.definition.toolList[0]?.inputSchema, null, 2), outputs['search-schema'], 'advertised schema');
    expectEqual(json(tool?.inputSchema), JSON.parse(outputs['search-schema'] as string), 'schema as the client sees it');

    const ok = await client.callTool({ name: 'search_issues', arguments: { repo: 'acme/rockets', query: 'fuel' } });
    expectEqual(
      ok,
      { content: [{ type: 'text', text: 'Searching acme/rockets for "fuel": open issues, at most 10' }] },
      'defaults applied',
    );

    // #region client-shape
    const wrongShape = await client.callTool({ name: 'search_issues', arguments: { query: 5, limit: '5', extra: true } });
    // #endregion
    expectEqual(wrongShape.isError, true, 'a wrong shape is a tool error');
    expectEqual(textOf(wrongShape), outputs['shape-errors'], 'shape errors text');

    // #region client-constraints
    const bad = await client.callTool({ name: 'search_issues', arguments: { repo: 'rockets', query: '', limit: 51, state: 'all' } });
    // #endregion
    expectEqual(bad.isError, true, 'invalid arguments are a tool error');
    expectEqual(textOf(bad), outputs['invalid-arguments'], 'invalid arguments text');

    // No implicit conversion: "5" is not a number.
    const text = textOf(await client.callTool({ name: 'search_issues', arguments: { repo: 'a/b', query: 'x', limit: '5' } }));
    expectEqual(text, outputs['no-conversion'], 'no implicit conversion');
  } finally {
    await close();
  }
}

async function nested(): Promise<void> {
  const app = createMcpApp(CustomersServer);
  const { client, close } = await connectInMemory(app);
  try {
    expectEqual(JSON.stringify(app.definition.toolList[0]?.inputSchema, null, 2), outputs['nested-schema'], 'nested schema');
    const created = await client.callTool({
      name: 'createCustomer',
      arguments: {
        name: 'Ada',
        address: { street: '1 Loop Rd', country: 'GB' },
        deliveryAddresses: [{ street: '2 Loop Rd', country: 'GB' }],
      },
    });
    expectEqual(created.structuredContent, { created: 'Ada', country: 'GB', deliveries: 1 }, 'nested call');
    const bad = await client.callTool({
      name: 'createCustomer',
      arguments: {
        name: 'Ada',
        address: { street: '1 Loop Rd', country: 'GBR' },
        deliveryAddresses: [
          { street: 'x', country: 'GB' },
          { street: 'y', country: 'G' },
        ],
      },
    });
    expectEqual(textOf(bad), outputs['nested-errors'], 'nested errors');
    const wrongShapes = await client.callTool({
      name: 'createCustomer',
      arguments: { name: 'Ada', address: [{ street: 'x', country: 'GB' }], deliveryAddresses: { street: 'x', country: 'GB' } },
    });
    expectEqual(
      textOf(wrongShapes),
      'Invalid arguments for tool "createCustomer":\naddress: must be object\ndeliveryAddresses: must be array',
      'the shape check refuses an array for an object and an object for an array',
    );
  } finally {
    await close();
  }

  // A type the schema states twice (@IsObject and the nested DTO's $ref) is still one line.
  class Destination {
    @IsObject()
    @ValidateNested()
    @Type(() => Address)
    address!: Address;
  }
  @McpServer({ name: 'shipping', version: '1.0.0' })
  class ShippingServer {
    @Tool({ description: 'Ship' })
    ship(input: Destination) {
      return input.address.country;
    }
  }
  const shipping = createMcpApp(ShippingServer);
  const second = await connectInMemory(shipping);
  try {
    const schema = json(shipping.definition.toolList[0]?.inputSchema) as { properties: Record<string, unknown> };
    expectEqual(schema.properties.address, { type: 'object', $ref: '#/$defs/Address' }, 'the type is stated twice');
    const wrong = await second.client.callTool({ name: 'ship', arguments: { address: [{ street: 'x', country: 'GB' }] } });
    expectEqual(textOf(wrong), 'Invalid arguments for tool "ship":\naddress: must be object', 'reported once');
  } finally {
    await second.close();
  }
}

async function rawSchema(): Promise<void> {
  const { client, close } = await connectInMemory(createMcpApp(CalculatorServer));
  try {
    const [tool] = (await client.listTools()).tools;
    expectEqual(
      json(tool?.outputSchema),
      {
        type: 'object',
        properties: { sum: { type: 'number' } },
        required: ['sum'],
      },
      'raw outputSchema advertised',
    );
    expectEqual(
      await client.callTool({ name: 'add', arguments: { a: 2 } }),
      { content: [{ type: 'text', text: '{"sum":2}' }], structuredContent: { sum: 2 } },
      'raw defaults',
    );
    expectEqual(textOf(await client.callTool({ name: 'add', arguments: { a: 'two', c: 1 } })), outputs['raw-errors'], 'raw errors');
  } finally {
    await close();
  }
}

/** Page claims: the header is advertised, the official client sends it, a disagreeing one is refused. */
async function headerParams(): Promise<void> {
  const listener = await createMcpApp(ForecastServer).listenHttp({ port: 0 });
  try {
    const client = new Client({ name: 'modern', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(new StreamableHTTPClientTransport(new URL(listener.url)));
    const [tool] = (await client.listTools()).tools;
    expectEqual(
      json(tool?.inputSchema.properties?.region),
      { type: 'string', description: 'Region whose servers answer', 'x-mcp-header': 'Region' },
      'advertised',
    );
    const result = await client.callTool({ name: 'forecast', arguments: { region: 'eu', city: 'Oslo' } });
    expectEqual(textOf(result), 'Sunny in Oslo (served in eu)', 'the official client sends Mcp-Param-Region itself');
    await client.close();
    // A request whose header says another region than its body never reaches the tool.
    const response = await fetch(listener.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'forecast',
        'mcp-param-region': 'us',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'forecast',
          arguments: { region: 'eu', city: 'Oslo' },
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      }),
    });
    const { error } = (await response.json()) as { error: { code: number; message: string } };
    expectEqual(`${response.status} ${error.code} ${error.message}`, outputs['header-mismatch'], 'a header that disagrees');
  } finally {
    await listener.close();
  }
}

async function outputDto(): Promise<void> {
  const app = createMcpApp(PricesServer);
  const { client, close } = await connectInMemory(app);
  try {
    const [tool] = (await client.listTools()).tools;
    expectEqual(
      json(tool?.outputSchema),
      {
        type: 'object',
        properties: { sku: { type: 'string' }, cents: { type: 'integer' }, currency: { const: 'EUR', type: 'string' } },
        required: ['sku', 'cents', 'currency'],
        additionalProperties: false,
      },
      'output DTO advertised as outputSchema',
    );
    expectEqual(
      await client.callTool({ name: 'getPrice', arguments: { sku: 'A-1' } }),
      {
        content: [{ type: 'text', text: '{"sku":"A-1","cents":1250,"currency":"EUR"}' }],
        structuredContent: { sku: 'A-1', cents: 1250, currency: 'EUR' },
      },
      'output DTO: structuredContent plus a JSON text copy, extra members dropped',
    );
    const missing = await client.callTool({ name: 'getPrice', arguments: { sku: 'B-2' } });
    expectEqual([missing.isError, textOf(missing)], [true, outputs['output-mismatch']], 'a missing value is a tool error');
  } finally {
    await close();
  }
}

async function limits(): Promise<void> {
  expectEqual(
    { ...DEFAULT_ARGUMENT_LIMITS },
    { maxDepth: 32, maxObjectKeys: 1000, maxArrayLength: 10000, maxNodes: 20000, maxStringLength: 1048576 },
    'default limits',
  );
  expectEqual(
    tagging.definition.tools.get('tag')?.limits,
    { ...DEFAULT_ARGUMENT_LIMITS, maxDepth: 8, maxStringLength: 10_000, maxArrayLength: 3 },
    'merged limits',
  );
  const { client, close } = await connectInMemory(tagging);
  try {
    expectEqual(textOf(await client.callTool({ name: 'tag', arguments: { tags: ['a', 'b', 'c'] } })), 'a, b, c', 'within limits');
    expectEqual(
      textOf(await client.callTool({ name: 'tag', arguments: { tags: ['a', 'b', 'c', 'd'] } })),
      outputs['limits-error'],
      'limit exceeded',
    );
    expectEqual(
      textOf(await client.callTool({ name: 'tag', arguments: { tags: [], constructor: 'x' } })),
      'Invalid arguments for tool "tag":\nconstructor: this property name is not allowed',
      'prototype keys refused',
    );
  } finally {
    await close();
  }
}

async function noArguments(): Promise<void> {
  @McpServer({ name: 'clock', version: '1.0.0' })
  class ClockServer {
    @Tool({ description: 'Current time' })
    now(ctx: Context) {
      return `request ${String(ctx.requestId)}`;
    }
  }
  const app = createMcpApp(ClockServer);
  expectEqual(
    app.definition.toolList[0]?.inputSchema,
    { type: 'object', properties: {}, additionalProperties: false },
    'a tool without a DTO',
  );
  const { client, close } = await connectInMemory(app);
  try {
    expectEqual(
      textOf(await client.callTool({ name: 'now', arguments: { zone: 'UTC' } })),
      'Invalid arguments for tool "now":\nzone: unknown property; this tool takes no arguments',
      'a tool without a DTO refuses arguments',
    );
  } finally {
    await close();
  }
}

/** Claims of the page not shown as code: inheritance, same-named DTOs, self-reference. */
async function schemaDetails(): Promise<void> {
  @McpServer({ name: 'base', version: '1.0.0' })
  class BaseServer {
    @Tool({ description: 'Inherited' })
    ping() {
      return 'base ping';
    }

    @Tool({ description: 'Replaced' })
    version() {
      return 'base';
    }
  }
  @McpServer({ name: 'derived', version: '1.0.0' })
  class DerivedServer extends BaseServer {
    @Tool({ description: 'Replaced in the subclass' })
    override version() {
      return 'derived';
    }
  }
  const { client, close } = await connectInMemory(createMcpApp(DerivedServer));
  try {
    expectEqual(
      (await client.listTools()).tools.map((t) => [t.name, t.description]),
      [
        ['ping', 'Inherited'],
        ['version', 'Replaced in the subclass'],
      ],
      'inherited tools',
    );
    expectEqual(textOf(await client.callTool({ name: 'version', arguments: {} })), 'derived', 'overridden tool');
  } finally {
    await close();
  }

  const First = (() => {
    class Address {
      @IsString() city!: string;
    }
    return Address;
  })();
  class Node {
    @IsString() label!: string;
    @IsOptional() @IsArray() @ValidateNested({ each: true }) @Type(() => Node) children?: Node[];
  }
  class Both {
    @ValidateNested() @Type(() => First) home!: InstanceType<typeof First>;
    @ValidateNested() @Type(() => Address) work!: Address;
    @ValidateNested() @Type(() => Node) tree!: Node;
  }
  const { schema, problems } = dtoToJsonSchema(Both);
  expectEqual(problems, [], 'no problems');
  expectEqual(
    schema.properties,
    { home: { $ref: '#/$defs/Address' }, work: { $ref: '#/$defs/Address2' }, tree: { $ref: '#/$defs/Node' } },
    'same-named DTOs',
  );
  expectEqual(
    (schema.$defs as Record<string, { properties: unknown }>).Node?.properties,
    { label: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/Node' } } },
    'self-reference',
  );
}

/** Page claims: an initialised property without a validator, and an untyped property, stop start-up. */
function startupChecks(): void {
  class Sneaky {
    @IsString()
    query!: string;
    internal = 5;
  }
  class Untyped {
    @Length(1, 10)
    name!: string;
  }
  // What a DTO compiled without decorator metadata looks like.
  Reflect.deleteMetadata('design:type', Untyped.prototype, 'name');
  @McpServer({ name: 'bad-dtos', version: '1.0.0' })
  class BadDtos {
    @Tool({ description: 'a' })
    a(input: Sneaky) {
      return input.query;
    }
    @Tool({ description: 'b' })
    b(input: Untyped) {
      return input.name;
    }
  }
  const message = buildError(() => createMcpApp(BadDtos));
  expectEqual(
    [
      message.includes('BadDtos.a: Sneaky.internal has an initial value but no class-validator decorator'),
      message.includes('BadDtos.b: the type of Untyped.name is unknown: no type validator, and no design:type metadata'),
    ],
    [true, true],
    `start-up checks: ${message}`,
  );
}

async function validateOutsideATool(): Promise<void> {
  // #region validate-dto
  const valid = await validateDto(SearchIssuesInput, { repo: 'acme/rockets', query: 'launch' });
  // valid.ok is true; valid.value is a SearchIssuesInput instance, defaults applied

  const invalid = await validateDto(SearchIssuesInput, { repo: 'rockets', query: '', limit: 51 }, { maxStringLength: 1_000 });
  const message = invalid.ok ? undefined : formatIssues('Invalid search:', invalid.issues);
  // #endregion
  expectEqual(valid.ok && valid.value instanceof SearchIssuesInput, true, 'validateDto returns a DTO instance');
  expectEqual(json(valid), JSON.parse(outputs['validate-dto-valid'] as string), 'the valid outcome');
  expectEqual(invalid.ok ? undefined : json(invalid.issues), JSON.parse(outputs['validate-dto-issues'] as string), 'the issues');
  expectEqual(message, outputs['validate-dto-invalid'], 'formatIssues');
  const deep = await validateDto(SearchIssuesInput, { repo: 'a/b', query: 'x', labels: [[['x']]] }, { maxDepth: 2 });
  expectEqual(deep.ok, false, 'the limits are checked first');
}

export async function main(): Promise<void> {
  await validateOutsideATool();
  startupChecks();
  await schemaDetails();
  await searchIssues();
  await nested();
  await rawSchema();
  await headerParams();
  await outputDto();
  await limits();
  await noArguments();
  expectEqual(
    buildError(() => createMcpApp([SearchServer, LookupServer])),
    outputs['naming-errors'],
    'naming errors',
  );
  expectEqual(mappingTable(), outputs['mapping-table'], 'mapping table');
}
