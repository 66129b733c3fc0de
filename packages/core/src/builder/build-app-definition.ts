import type { Tool } from '@modelcontextprotocol/server';
import type {
  ArgumentLimits,
  Constructor,
  HandlerKind,
  HandlerMetadataArgs,
  JsonSchema,
  ToolMetadataArgs,
} from '../metadata/metadata-args.js';
import { getMetadataStorage, type MetadataStorage } from '../metadata/metadata-storage.js';
import { DtoSchemaWriter, JSON_SCHEMA_DIALECT, structuralSchema } from '../schema/dto-to-json-schema.js';
import { DEFAULT_ARGUMENT_LIMITS } from '../validation/argument-limits.js';
import { compileJsonSchema, compileShapeCheck } from '../validation/json-schema-validator.js';
import { ArmatureBuildError, type BuildProblem } from './build-error.js';
import { buildPrompt, buildResource, buildResourceTemplate, deepFreeze, NAME_PATTERN, suggestName } from './build-handlers.js';
import { buildPipeline } from './build-pipeline.js';
import type {
  AppDefinition,
  InputDefinition,
  OutputDefinition,
  PromptDefinition,
  ResourceDefinition,
  ResourceTemplateDefinition,
  ToolDefinition,
} from './definitions.js';
import { explicitDto, inferDtoParameter } from './infer-dto-parameter.js';

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
  const resources = new Map<string, ResourceDefinition>();
  const resourceTemplates: ResourceTemplateDefinition[] = [];
  const prompts = new Map<string, PromptDefinition>();
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
    for (const args of handlersOfChain(serverClass, storage, 'tool')) {
      const built = buildTool(serverClass, args, options.limits, storage, problems);
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
    for (const args of handlersOfChain(serverClass, storage, 'resource')) {
      const where = `${serverClass.name}.${args.methodName}`;
      const built = buildResource(serverClass, args, storage, (message, fix) => problems.push({ where, message, fix }));
      if (!built) continue;
      const clash = resources.get(built.uri);
      if (clash) {
        problems.push({
          where,
          message: `the resource URI "${built.uri}" is already served by ${clash.where}`,
          fix: 'give each resource its own URI',
        });
        continue;
      }
      resources.set(built.uri, built);
    }
    for (const args of handlersOfChain(serverClass, storage, 'resourceTemplate')) {
      const where = `${serverClass.name}.${args.methodName}`;
      const built = buildResourceTemplate(serverClass, args, storage, (message, fix) => problems.push({ where, message, fix }));
      if (!built) continue;
      const clash = resourceTemplates.find((t) => t.descriptor.uriTemplate === built.descriptor.uriTemplate);
      if (clash) {
        problems.push({
          where,
          message: `the URI template "${built.descriptor.uriTemplate}" is already served by ${clash.where}`,
          fix: 'give each template its own pattern',
        });
        continue;
      }
      resourceTemplates.push(built);
    }
    for (const args of handlersOfChain(serverClass, storage, 'prompt')) {
      const where = `${serverClass.name}.${args.methodName}`;
      const built = buildPrompt(serverClass, args, storage, (message, fix) => problems.push({ where, message, fix }));
      if (!built) continue;
      const clash = prompts.get(built.name);
      if (clash) {
        problems.push({
          where,
          message: `the prompt name "${built.name}" is already used by ${clash.where}`,
          fix: `give one of them another name: @Prompt({ name: '${built.name}_2', ... })`,
        });
        continue;
      }
      prompts.set(built.name, built);
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
    resources,
    resourceTemplates: Object.freeze(resourceTemplates),
    prompts,
  });
}

/** Handler methods of one kind on the class and its ancestors; a method re-decorated in a subclass wins. */
function handlersOfChain<K extends HandlerKind>(serverClass: Constructor, storage: MetadataStorage, kind: K): HandlerMetadataArgs<K>[] {
  const byMethod = new Map<string, HandlerMetadataArgs<K>>();
  const chain: Constructor[] = [];
  for (let current: unknown = serverClass; typeof current === 'function' && current !== Function.prototype; ) {
    chain.push(current as Constructor);
    current = Object.getPrototypeOf(current);
  }
  for (const target of chain.reverse()) {
    for (const handler of storage.handlersOf(target, kind)) {
      byMethod.delete(handler.methodName);
      byMethod.set(handler.methodName, handler);
    }
  }
  return [...byMethod.values()];
}

function buildTool(
  serverClass: Constructor,
  args: ToolMetadataArgs,
  appLimits: ArgumentLimits | undefined,
  storage: MetadataStorage,
  problems: BuildProblem[],
): ToolDefinition | undefined {
  const where = `${serverClass.name}.${args.methodName}`;
  const options = args.options;
  const before = problems.length;
  const name = options.name ?? args.methodName;
  const report = (message: string, fix: string) => problems.push({ where, message, fix });

  if (args.isStatic) report('@Tool is on a static method', `make ${args.methodName} an instance method (remove \`static\`)`);
  if (!NAME_PATTERN.test(name)) {
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

  const pipeline = buildPipeline(serverClass, args.methodName, storage, report);
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
    methodName: args.methodName,
    pipeline,
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
  const dto = options.input ? explicitDto(options.input, 'input', report) : inferDtoParameter(args, 'input', report);
  if (!dto) return { definition: { kind: 'none' }, schema: EMPTY_INPUT_SCHEMA };
  const schema = writer.write(dto);
  return { definition: { kind: 'dto', dto, shape: compileShapeCheck(structuralSchema(schema)) }, schema };
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
    const dto = explicitDto(options.output, 'output', report);
    if (!dto) return { definition: { kind: 'none' } };
    return { definition: { kind: 'dto', dto }, schema: writer.write(dto) };
  }
  return { definition: { kind: 'none' } };
}

function kebab(name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();
}
