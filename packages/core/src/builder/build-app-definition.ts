import type { Tool } from '@modelcontextprotocol/server';
import type { ArgumentLimits, Constructor, JsonSchema, ToolMetadataArgs } from '../metadata/metadata-args.js';
import { getMetadataStorage, type MetadataStorage } from '../metadata/metadata-storage.js';
import { Context } from '../runtime/context.js';
import { DtoSchemaWriter, JSON_SCHEMA_DIALECT } from '../schema/dto-to-json-schema.js';
import { DEFAULT_ARGUMENT_LIMITS } from '../validation/argument-limits.js';
import { compileJsonSchema } from '../validation/json-schema-validator.js';
import { ArmatureBuildError, type BuildProblem } from './build-error.js';
import type { AppDefinition, InputDefinition, OutputDefinition, ToolDefinition } from './definitions.js';

const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;
const PRIMITIVE_TYPES = new Set<unknown>([String, Number, Boolean, Array, Symbol, BigInt]);
const UNREFLECTED = new Set<unknown>([Object, Function, undefined]);

export interface BuildOptions {
  /** Overrides the server info taken from the first `@McpServer` class. */
  info?: { name: string; version: string; title?: string };
  /** Instructions; by default those of every served class, joined by blank lines. */
  instructions?: string;
  /** App-wide argument limits (each `@Tool({ limits })` may override). */
  limits?: ArgumentLimits;
}

/**
 * Turns the recorded metadata of `serverClasses` into frozen definitions, checking everything a
 * request would otherwise trip over. Reports every problem at once in an `ArmatureBuildError`.
 * Pure: it reads the storage and reflection, and changes neither.
 */
export function buildAppDefinition(
  serverClasses: readonly Constructor[],
  options: BuildOptions = {},
  storage: MetadataStorage = getMetadataStorage(),
): AppDefinition {
  const problems: BuildProblem[] = [];
  const tools = new Map<string, ToolDefinition>();
  const instructions: string[] = [];

  if (serverClasses.length === 0) {
    problems.push({ where: 'createMcpApp', message: 'no server class was given', fix: 'createMcpApp(MyServer) or createMcpApp([A, B])' });
  }
  const seen = new Set<Constructor>();
  for (const serverClass of serverClasses) {
    if (typeof serverClass !== 'function') {
      problems.push({
        where: 'createMcpApp',
        message: `expected a class, got ${String(serverClass)}`,
        fix: 'pass the @McpServer class itself',
      });
      continue;
    }
    if (seen.has(serverClass)) {
      problems.push({ where: serverClass.name, message: 'this class is listed twice', fix: 'list each server class once' });
      continue;
    }
    seen.add(serverClass);
    const server = storage.findServer(serverClass);
    if (!server) {
      problems.push({
        where: serverClass.name,
        message: 'the class is not decorated with @McpServer',
        fix: `@McpServer({ name: '${kebab(serverClass.name)}', version: '1.0.0' }) class ${serverClass.name} { ... }`,
      });
      continue;
    }
    if (server.options.instructions) instructions.push(server.options.instructions);
    for (const args of toolsOfChain(serverClass, storage)) {
      const built = buildTool(serverClass, args, options.limits, problems);
      if (!built) continue;
      const clash = tools.get(built.name);
      if (clash) {
        problems.push({
          where: built.where,
          message: `the tool name "${built.name}" is already used by ${clash.where}`,
          fix: `give one of them another name: @Tool({ name: '${built.name}_2', ... })`,
        });
        continue;
      }
      tools.set(built.name, built);
    }
  }

  if (problems.length > 0) throw new ArmatureBuildError(problems);

  const first = storage.findServer(serverClasses[0] as Constructor)?.options;
  const info = options.info ?? { name: first?.name ?? 'armature', version: first?.version ?? '0.0.0', title: first?.title };
  const requestScoped = storage.requestScopedClasses();
  return Object.freeze({
    info: Object.freeze({ ...info, ...(first?.icons ? { icons: first.icons } : {}) }),
    instructions: options.instructions ?? (instructions.length > 0 ? instructions.join('\n\n') : undefined),
    serverClasses: Object.freeze([...serverClasses]),
    requestScoped: Object.freeze(requestScoped),
    tools,
    toolList: Object.freeze([...tools.values()].map((tool) => tool.descriptor)),
  });
}

/** Tools of the class and its ancestors; a method re-decorated in a subclass wins. */
function toolsOfChain(serverClass: Constructor, storage: MetadataStorage): ToolMetadataArgs[] {
  const byMethod = new Map<string, ToolMetadataArgs>();
  const chain: Constructor[] = [];
  for (let current: unknown = serverClass; typeof current === 'function' && current !== Function.prototype; ) {
    chain.push(current as Constructor);
    current = Object.getPrototypeOf(current);
  }
  for (const target of chain.reverse()) {
    for (const tool of storage.toolsOf(target)) {
      byMethod.delete(tool.methodName);
      byMethod.set(tool.methodName, tool);
    }
  }
  return [...byMethod.values()];
}

function buildTool(
  serverClass: Constructor,
  args: ToolMetadataArgs,
  appLimits: ArgumentLimits | undefined,
  problems: BuildProblem[],
): ToolDefinition | undefined {
  const where = `${serverClass.name}.${args.methodName}`;
  const options = args.options;
  const before = problems.length;
  const name = options.name ?? args.methodName;
  const report = (message: string, fix: string) => problems.push({ where, message, fix });

  if (args.isStatic) report('@Tool is on a static method', `make ${args.methodName} an instance method (remove \`static\`)`);
  if (!TOOL_NAME.test(name)) {
    report(
      `the tool name "${name}" is invalid: a name is 1-128 characters of A-Z a-z 0-9 _ . -`,
      `@Tool({ name: '${suggestName(name)}', ... })`,
    );
  }
  if (typeof options.description !== 'string' || options.description.trim() === '') {
    report(
      'the tool has no description (the model reads it to decide when to call the tool)',
      `@Tool({ description: 'What ${name} does and when to use it' })`,
    );
  }
  const method = (serverClass.prototype as Record<string, unknown>)[args.methodName];
  if (typeof method !== 'function' && !args.isStatic) report('@Tool is not on a method', 'put @Tool on a method of the class');

  const writer = new DtoSchemaWriter();
  const input = resolveInput(args, writer, report);
  const inputSchema = input.schema;
  for (const problem of writer.problems) report(problem.message, problem.fix);

  const outWriter = new DtoSchemaWriter();
  const output = resolveOutput(args, outWriter, report);
  for (const problem of outWriter.problems) report(problem.message, problem.fix);

  if (problems.length > before) return undefined;

  const descriptor: Tool = { name, description: options.description, inputSchema: inputSchema as Tool['inputSchema'] };
  if (options.title) descriptor.title = options.title;
  if (output.schema) descriptor.outputSchema = output.schema as Tool['outputSchema'];
  if (options.annotations) descriptor.annotations = { ...options.annotations };
  if (options.icons) descriptor.icons = [...options.icons];
  if (options._meta) descriptor._meta = { ...options._meta };

  return Object.freeze({
    name,
    where,
    serverClass,
    method: method as (...a: unknown[]) => unknown,
    descriptor: deepFreeze(descriptor),
    inputSchema: inputSchema as JsonSchema,
    outputSchema: output.schema,
    input: input.definition,
    output: output.definition,
    limits: Object.freeze({ ...DEFAULT_ARGUMENT_LIMITS, ...appLimits, ...options.limits }),
  });
}

const EMPTY_INPUT_SCHEMA: JsonSchema = { $schema: JSON_SCHEMA_DIALECT, type: 'object', properties: {}, additionalProperties: false };

function resolveInput(
  args: ToolMetadataArgs,
  writer: DtoSchemaWriter,
  report: (message: string, fix: string) => void,
): { definition: InputDefinition; schema: JsonSchema } {
  const { options } = args;
  if (options.inputSchema && options.input) {
    report('both `input` and `inputSchema` are given', 'keep one: `input: () => Dto` (validated DTO) or `inputSchema` (raw JSON)');
  }
  if (options.inputSchema) {
    const schema = options.inputSchema;
    if (schema.type !== 'object')
      report(
        '`inputSchema` must describe an object (`type: "object"` at the root)',
        `inputSchema: { type: 'object', properties: { ... } }`,
      );
    try {
      return { definition: { kind: 'schema', validate: compileJsonSchema(schema) }, schema: { $schema: JSON_SCHEMA_DIALECT, ...schema } };
    } catch (error) {
      report(`\`inputSchema\` is not a valid JSON Schema: ${(error as Error).message}`, 'correct the schema (JSON Schema 2020-12)');
      return { definition: { kind: 'none' }, schema: EMPTY_INPUT_SCHEMA };
    }
  }
  if (options.input) {
    const dto = typeof options.input === 'function' ? options.input() : undefined;
    if (typeof dto !== 'function') {
      report('`input` must be a function returning the DTO class', 'input: () => MyInputDto');
      return { definition: { kind: 'none' }, schema: EMPTY_INPUT_SCHEMA };
    }
    return { definition: { kind: 'dto', dto: dto as Constructor }, schema: writer.write(dto as Constructor) };
  }

  const first = args.paramTypes?.[0];
  if (args.paramTypes === undefined) {
    if (args.declaredParamCount > 0) {
      report(
        'no decorator metadata was emitted for this method, so its DTO parameter type is unknown (tsx and esbuild emit none)',
        'compile with tsc or vite-node and `"emitDecoratorMetadata": true`, or name the DTO: @Tool({ input: () => MyInputDto, ... })',
      );
    }
    return { definition: { kind: 'none' }, schema: EMPTY_INPUT_SCHEMA };
  }
  if (args.declaredParamCount === 0 || first === Context || args.paramTypes.length === 0) {
    return { definition: { kind: 'none' }, schema: EMPTY_INPUT_SCHEMA };
  }
  if (UNREFLECTED.has(first)) {
    report(
      "the first parameter's type did not reflect (it is an interface, a type alias, or imported with `import type`)",
      'declare the DTO as a class and import it as a value (`import { MyInputDto }`, not `import type`), or @Tool({ input: () => MyInputDto, ... }). If the parameter is the Context, import Context as a value too',
    );
    return { definition: { kind: 'none' }, schema: EMPTY_INPUT_SCHEMA };
  }
  if (PRIMITIVE_TYPES.has(first)) {
    report(
      `the first parameter is a ${(first as Function).name.toLowerCase()}, but tool arguments are an object`,
      'wrap the arguments in a DTO class: `class MyInput { @IsString() value!: string }` and take `(input: MyInput, ctx: Context)`',
    );
    return { definition: { kind: 'none' }, schema: EMPTY_INPUT_SCHEMA };
  }
  const dto = first as Constructor;
  return { definition: { kind: 'dto', dto }, schema: writer.write(dto) };
}

function resolveOutput(
  args: ToolMetadataArgs,
  writer: DtoSchemaWriter,
  report: (message: string, fix: string) => void,
): { definition: OutputDefinition; schema?: JsonSchema } {
  const { options } = args;
  if (options.output && options.outputSchema) {
    report('both `output` and `outputSchema` are given', 'keep one: `output: () => Dto` or `outputSchema` (raw JSON)');
  }
  if (options.outputSchema) {
    const schema = options.outputSchema;
    if (schema.type !== 'object')
      report(
        '`outputSchema` must describe an object (`type: "object"` at the root)',
        `outputSchema: { type: 'object', properties: { ... } }`,
      );
    try {
      return { definition: { kind: 'schema', validate: compileJsonSchema(schema) }, schema: { $schema: JSON_SCHEMA_DIALECT, ...schema } };
    } catch (error) {
      report(`\`outputSchema\` is not a valid JSON Schema: ${(error as Error).message}`, 'correct the schema (JSON Schema 2020-12)');
      return { definition: { kind: 'none' } };
    }
  }
  if (options.output) {
    const dto = typeof options.output === 'function' ? options.output() : undefined;
    if (typeof dto !== 'function') {
      report('`output` must be a function returning the DTO class', 'output: () => MyOutputDto');
      return { definition: { kind: 'none' } };
    }
    return { definition: { kind: 'dto', dto: dto as Constructor }, schema: writer.write(dto as Constructor) };
  }
  return { definition: { kind: 'none' } };
}

function suggestName(name: string): string {
  const cleaned = String(name)
    .replace(/[^A-Za-z0-9_.-]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 128);
  return cleaned === '' ? 'my_tool' : cleaned;
}

function kebab(name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value as object)) deepFreeze(child);
  }
  return value;
}
