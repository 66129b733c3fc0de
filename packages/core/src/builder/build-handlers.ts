import {
  type Prompt,
  type PromptArgument,
  type Resource,
  type ResourceTemplateType,
  type Tool,
  UriTemplate,
} from '@modelcontextprotocol/server';
import { MESSAGES, type MessageDefinition, problem } from '../messages/message-catalog.js';
import type { ArgumentLimits, Constructor, HandlerKind, HandlerMetadataArgs, JsonSchema } from '../metadata/metadata-args.js';
import { JSON_SCHEMA_DIALECT } from '../schema/dto-to-json-schema.js';
import { DEFAULT_ARGUMENT_LIMITS } from '../validation/argument-limits.js';
import { type DtoDescriptor, describeDto } from '../validation/dto-descriptor.js';
import { compileJsonSchema, type JsonValidator } from '../validation/json-schema-validator.js';
import type { InputPlan } from '../validation/prepare-arguments.js';
import { buildCallPlan, type PlanContext } from './build-call-plan.js';
import type {
  CallPlan,
  CompletionDefinition,
  OutputDefinition,
  PromptDefinition,
  ResourceDefinition,
  ResourceTemplateDefinition,
  ToolDefinition,
} from './definitions.js';
import { explicitDto, inferDtoParameter } from './infer-dto-parameter.js';

const NAME_PATTERN = /^[A-Za-z0-9_.-]{1,128}$/;
const EMPTY_INPUT_SCHEMA: JsonSchema = { $schema: JSON_SCHEMA_DIALECT, type: 'object', properties: {}, additionalProperties: false };

type Method = (...args: unknown[]) => unknown;
type Report = (message: string, fix: string, code?: string) => void;

function suggestName(name: string): string {
  const cleaned = String(name)
    .replace(/[^A-Za-z0-9_.-]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 128);
  return cleaned === '' ? 'my_name' : cleaned;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value as object)) deepFreeze(child);
  }
  return value;
}

/** The handler being built: where it is, how to report against it, and the shared steps. */
class HandlerBuild<K extends HandlerKind> {
  readonly where: string;
  private readonly before: number;

  constructor(
    readonly planning: PlanContext,
    readonly serverClass: Constructor,
    readonly args: HandlerMetadataArgs<K>,
  ) {
    this.where = `${serverClass.name}.${args.methodName}`;
    this.before = planning.problems.length;
  }

  /** True while nothing was reported against this handler. */
  get sound(): boolean {
    return this.planning.problems.length === this.before;
  }

  readonly report: Report = (message, fix, code) => {
    this.planning.problems.push({ ...(code ? { code } : {}), where: this.where, message, fix });
  };

  add<A extends readonly unknown[]>(definition: MessageDefinition<A>, ...args: NoInfer<A>): void {
    this.planning.problems.push(problem(definition, this.where, ...args));
  }

  /** The decorated method, or undefined after reporting a static or non-method target. */
  method(): Method | undefined {
    if (this.args.isStatic) {
      this.add(MESSAGES.staticHandler, this.args.kind, this.args.methodName);
      return undefined;
    }
    const method = (this.serverClass.prototype as Record<string, unknown>)[this.args.methodName];
    if (typeof method !== 'function') {
      this.add(MESSAGES.notAMethod, this.args.kind);
      return undefined;
    }
    return method as Method;
  }

  checkName(kind: 'tool' | 'prompt', name: string): void {
    if (!NAME_PATTERN.test(name)) this.add(MESSAGES.invalidName, kind, name, suggestName(name));
  }

  /** The DTO the method takes (named by `option`, or its first parameter), null for none, undefined when unknown. */
  dto(option: 'input' | 'params' | 'args'): Constructor | null | undefined {
    const named = (this.args.options as Record<string, unknown>)[option];
    return named ? explicitDto(named, option, this.report) : inferDtoParameter(this.args, option, this.report);
  }

  /** The descriptor of a DTO, its problems reported against this handler. */
  describe(dto: Constructor): DtoDescriptor {
    const descriptor = describeDto(dto);
    for (const p of descriptor.problems) this.report(p.message, p.fix);
    return descriptor;
  }

  plan(name: string, method: Method, input: InputPlan, takesInput: boolean): CallPlan {
    const { serverClass, args } = this;
    return buildCallPlan(this.planning, { kind: args.kind, name, serverClass, methodName: args.methodName, method, input, takesInput });
  }
}

function withCommon<T extends object>(
  descriptor: T,
  options: { title?: string; description?: string; icons?: unknown[]; _meta?: Record<string, unknown> },
): T {
  const out = descriptor as Record<string, unknown>;
  if (options.title) out.title = options.title;
  if (options.description) out.description = options.description;
  if (options.icons) out.icons = [...options.icons];
  if (options._meta) out._meta = { ...options._meta };
  return descriptor;
}

function dtoInput(descriptor: DtoDescriptor, limits: Readonly<Required<ArgumentLimits>> = DEFAULT_ARGUMENT_LIMITS): InputPlan {
  return Object.freeze({ kind: 'dto', dto: descriptor, limits });
}

/** A hand-written schema (`inputSchema`/`outputSchema`), checked and compiled, or undefined after reporting. */
function rawSchema(build: HandlerBuild<'tool'>, option: 'inputSchema' | 'outputSchema', schema: JsonSchema) {
  if (schema.type !== 'object') build.add(MESSAGES.rawSchemaNotObject, option);
  try {
    return { validate: compileJsonSchema(schema), schema: { $schema: JSON_SCHEMA_DIALECT, ...schema } };
  } catch (error) {
    build.add(MESSAGES.rawSchemaInvalid, option, (error as Error).message);
    return undefined;
  }
}

/** A `@Tool` method as a frozen definition, or undefined after reporting its problems. */
export function buildTool(
  planning: PlanContext,
  serverClass: Constructor,
  args: HandlerMetadataArgs<'tool'>,
  appLimits: ArgumentLimits | undefined,
): ToolDefinition | undefined {
  const build = new HandlerBuild(planning, serverClass, args);
  const { options } = args;
  const name = options.name ?? args.methodName;
  if (args.isStatic) build.add(MESSAGES.staticHandler, 'tool', args.methodName);
  build.checkName('tool', name);
  if (typeof options.description !== 'string' || options.description.trim() === '') build.add(MESSAGES.toolDescriptionMissing, name);
  const method = (serverClass.prototype as Record<string, unknown>)[args.methodName];
  if (typeof method !== 'function' && !args.isStatic) build.add(MESSAGES.notAMethod, 'tool');

  const limits = Object.freeze({ ...DEFAULT_ARGUMENT_LIMITS, ...appLimits, ...options.limits });
  let input: InputPlan = { kind: 'none' };
  let inputSchema = EMPTY_INPUT_SCHEMA;
  if (options.inputSchema && options.input) build.add(MESSAGES.bothInputs, 'input');
  if (options.inputSchema) {
    const raw = rawSchema(build, 'inputSchema', options.inputSchema);
    if (raw) {
      input = Object.freeze({ kind: 'schema', validate: raw.validate, limits });
      inputSchema = raw.schema;
    }
  } else {
    const dto = build.dto('input');
    if (dto) {
      const descriptor = build.describe(dto);
      input = dtoInput(descriptor, limits);
      inputSchema = descriptor.schema;
    }
  }

  let output: OutputDefinition = { kind: 'none' };
  let outputSchema: JsonSchema | undefined;
  if (options.output && options.outputSchema) build.add(MESSAGES.bothInputs, 'output');
  if (options.outputSchema) {
    const raw = rawSchema(build, 'outputSchema', options.outputSchema);
    if (raw) {
      output = Object.freeze({ kind: 'schema', validate: raw.validate as JsonValidator });
      outputSchema = raw.schema;
    }
  } else if (options.output) {
    const dto = explicitDto(options.output, 'output', build.report);
    if (dto) {
      output = Object.freeze({ kind: 'dto', dto });
      outputSchema = build.describe(dto).schema;
    }
  }

  const plan = build.plan(name, method as Method, input, input.kind !== 'none');
  if (!build.sound) return undefined;

  const descriptor: Tool = { name, description: options.description, inputSchema: inputSchema as Tool['inputSchema'] };
  if (options.title) descriptor.title = options.title;
  if (outputSchema) descriptor.outputSchema = outputSchema as Tool['outputSchema'];
  if (options.annotations) descriptor.annotations = { ...options.annotations };
  if (options.icons) descriptor.icons = [...options.icons];
  if (options._meta) descriptor._meta = { ...options._meta };

  return Object.freeze({
    name,
    where: build.where,
    serverClass,
    descriptor: deepFreeze(descriptor),
    inputSchema,
    ...(outputSchema ? { outputSchema } : {}),
    input,
    output,
    limits,
    methodName: args.methodName,
    plan,
  });
}

/** A `@Resource` method as a frozen definition, or undefined after reporting its problems. */
export function buildResource(
  planning: PlanContext,
  serverClass: Constructor,
  args: HandlerMetadataArgs<'resource'>,
): ResourceDefinition | undefined {
  const build = new HandlerBuild(planning, serverClass, args);
  const { options } = args;
  const method = build.method();
  if (typeof options.uri !== 'string' || !/^[A-Za-z][A-Za-z0-9+.-]*:/.test(options.uri))
    build.add(MESSAGES.resourceUriInvalid, String(options.uri));
  if (typeof options.name !== 'string' || options.name === '') build.add(MESSAGES.nameMissing, 'resource');
  if (!build.sound || !method) return undefined;
  const plan = build.plan(options.uri, method, { kind: 'none' }, false);
  if (!build.sound) return undefined;
  const descriptor: Resource = withCommon({ uri: options.uri, name: options.name } as Resource, options);
  if (options.mimeType) descriptor.mimeType = options.mimeType;
  if (options.size !== undefined) descriptor.size = options.size;
  if (options.annotations) descriptor.annotations = { ...options.annotations };
  return Object.freeze({
    uri: options.uri,
    where: build.where,
    serverClass,
    descriptor: deepFreeze(descriptor),
    methodName: args.methodName,
    plan,
  });
}

/** A `@ResourceTemplate` method as a frozen definition, or undefined after reporting its problems. */
export function buildResourceTemplate(
  planning: PlanContext,
  serverClass: Constructor,
  args: HandlerMetadataArgs<'resourceTemplate'>,
): ResourceTemplateDefinition | undefined {
  const build = new HandlerBuild(planning, serverClass, args);
  const { options } = args;
  const method = build.method();
  let template: UriTemplate | undefined;
  try {
    template = new UriTemplate(options.uriTemplate);
  } catch (error) {
    build.add(MESSAGES.uriTemplateInvalid, String(options.uriTemplate), (error as Error).message);
  }
  if (typeof options.name !== 'string' || options.name === '') build.add(MESSAGES.nameMissing, 'resourceTemplate');
  const params = build.dto('params');
  if (!template || !method || params === undefined || !options.name) return undefined;

  const variables = template.variableNames;
  let descriptorOfParams: DtoDescriptor | undefined;
  if (params) {
    descriptorOfParams = build.describe(params);
    const properties = Object.keys((descriptorOfParams.schema.properties as object) ?? {});
    const unbound = variables.find((variable) => !properties.includes(variable));
    if (unbound !== undefined) {
      build.add(MESSAGES.templateVariableUnbound, unbound, params.name);
      return undefined;
    }
  } else if (variables.length > 0) {
    build.add(MESSAGES.templateWithoutParams, variables);
    return undefined;
  }
  const completions = buildCompletions(build, params);
  const plan = build.plan(options.name, method, descriptorOfParams ? dtoInput(descriptorOfParams) : { kind: 'none' }, params !== null);
  const descriptor: ResourceTemplateType = withCommon(
    { uriTemplate: options.uriTemplate, name: options.name } as ResourceTemplateType,
    options,
  );
  if (options.mimeType) descriptor.mimeType = options.mimeType;
  if (options.annotations) descriptor.annotations = { ...options.annotations };
  if (!build.sound) return undefined;
  return Object.freeze({
    name: options.name,
    where: build.where,
    serverClass,
    descriptor: deepFreeze(descriptor),
    template,
    ...(params ? { params } : {}),
    completions,
    methodName: args.methodName,
    plan,
  });
}

/** A `@Prompt` method as a frozen definition, or undefined after reporting its problems. */
export function buildPrompt(
  planning: PlanContext,
  serverClass: Constructor,
  args: HandlerMetadataArgs<'prompt'>,
): PromptDefinition | undefined {
  const build = new HandlerBuild(planning, serverClass, args);
  const { options } = args;
  const name = options.name ?? args.methodName;
  const method = build.method();
  build.checkName('prompt', name);
  if (typeof options.description !== 'string' || options.description.trim() === '') build.add(MESSAGES.promptDescriptionMissing, name);
  const dto = build.dto('args');
  if (dto === undefined || !build.sound || !method) return undefined;

  const promptArguments: PromptArgument[] = [];
  let descriptorOfArgs: DtoDescriptor | undefined;
  if (dto) {
    descriptorOfArgs = build.describe(dto);
    const schema = descriptorOfArgs.schema;
    const required = new Set((schema.required as string[] | undefined) ?? []);
    for (const [property, propertySchema] of Object.entries((schema.properties as Record<string, Record<string, unknown>>) ?? {})) {
      // Prompt arguments travel as strings (MCP PromptArgument); anything else cannot be sent.
      const type = propertySchema.type;
      if (type !== undefined && type !== 'string') {
        build.add(MESSAGES.promptArgumentNotString, dto.name, property, String(type));
        continue;
      }
      const argument: PromptArgument = { name: property, required: required.has(property) };
      if (typeof propertySchema.description === 'string') argument.description = propertySchema.description;
      promptArguments.push(argument);
    }
  }
  const completions = buildCompletions(build, dto);
  const plan = build.plan(name, method, descriptorOfArgs ? dtoInput(descriptorOfArgs) : { kind: 'none' }, dto !== null);
  if (!build.sound) return undefined;
  const descriptor: Prompt = withCommon({ name } as Prompt, options);
  if (dto) descriptor.arguments = promptArguments;
  return Object.freeze({
    name,
    where: build.where,
    serverClass,
    descriptor: deepFreeze(descriptor),
    ...(dto ? { args: dto } : {}),
    completions,
    methodName: args.methodName,
    plan,
  });
}

/**
 * The `@Complete` sources of a prompt's or template's DTO, each as a plan the executor runs:
 * a method of the server class (resolved in the request's scope) or a plain function. Their
 * access is the prompt's or template's, checked before the source runs.
 */
function buildCompletions(
  build: HandlerBuild<'prompt' | 'resourceTemplate'>,
  dto: Constructor | null,
): ReadonlyMap<string, CompletionDefinition> {
  const completions = new Map<string, CompletionDefinition>();
  if (!dto) return completions;
  const { planning, serverClass } = build;
  const storage = planning.storage;
  const properties = storage.fieldNamesOf(dto).concat(Object.keys(describeDto(dto).schema.properties ?? {}));
  for (const property of properties) {
    if (completions.has(property)) continue;
    const found = storage.completionOf(dto, property);
    if (!found) continue;
    const source = found.source;
    let needsInstance = false;
    let invoke: CallPlan['invoke'];
    if (typeof source === 'function') {
      invoke = (_instance, input) => {
        const { value, context } = input as { value: string; context: Parameters<typeof source>[1] };
        return source(value, context);
      };
    } else {
      const method = (serverClass.prototype as Record<string, unknown>)[source];
      if (typeof method !== 'function') {
        build.add(MESSAGES.completionMethodMissing, source, dto.name, property, serverClass.name);
        continue;
      }
      needsInstance = true;
      invoke = (instance, input) => {
        const { value, context } = input as { value: string; context: unknown };
        return (method as Method).call(instance, value, context);
      };
    }
    completions.set(
      property,
      Object.freeze({
        kind: build.args.kind,
        name: property,
        where: typeof source === 'function' ? `${dto.name}.${property} (@Complete)` : `${serverClass.name}.${source}`,
        serverClass,
        methodName: typeof source === 'function' ? build.args.methodName : source,
        guards: Object.freeze([]),
        interceptors: Object.freeze([]),
        scopes: Object.freeze([]),
        guarded: false,
        input: { kind: 'raw' } as const,
        needsInstance,
        invoke,
      }),
    );
  }
  return completions;
}
