import { type Prompt, type PromptArgument, type Resource, type ResourceTemplateType, UriTemplate } from '@modelcontextprotocol/server';
import type { Constructor, HandlerMetadataArgs } from '../metadata/metadata-args.js';
import type { MetadataStorage } from '../metadata/metadata-storage.js';
import { DtoSchemaWriter } from '../schema/dto-to-json-schema.js';
import { buildPipeline } from './build-pipeline.js';
import type { CompletionDefinition, PromptDefinition, ResourceDefinition, ResourceTemplateDefinition } from './definitions.js';
import { explicitDto, inferDtoParameter, type Report } from './infer-dto-parameter.js';

export const NAME_PATTERN = /^[A-Za-z0-9_.-]{1,128}$/;

export function suggestName(name: string): string {
  const cleaned = String(name)
    .replace(/[^A-Za-z0-9_.-]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 128);
  return cleaned === '' ? 'my_name' : cleaned;
}

export function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value as object)) deepFreeze(child);
  }
  return value;
}

function methodOf(serverClass: Constructor, args: HandlerMetadataArgs, report: Report): ((...a: unknown[]) => unknown) | undefined {
  const decorator = { tool: '@Tool', resource: '@Resource', resourceTemplate: '@ResourceTemplate', prompt: '@Prompt' }[args.kind];
  if (args.isStatic) {
    report(`${decorator} is on a static method`, `make ${args.methodName} an instance method (remove \`static\`)`);
    return undefined;
  }
  const method = (serverClass.prototype as Record<string, unknown>)[args.methodName];
  if (typeof method !== 'function') {
    report(`${decorator} is not on a method`, `put ${decorator} on a method of the class`);
    return undefined;
  }
  return method as (...a: unknown[]) => unknown;
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

/** A `@Resource` method as a frozen definition, or undefined after reporting its problems. */
export function buildResource(
  serverClass: Constructor,
  args: HandlerMetadataArgs<'resource'>,
  storage: MetadataStorage,
  report: Report,
): ResourceDefinition | undefined {
  const { options } = args;
  const method = methodOf(serverClass, args, report);
  let valid = method !== undefined;
  if (typeof options.uri !== 'string' || !/^[A-Za-z][A-Za-z0-9+.-]*:/.test(options.uri)) {
    report(
      `the resource URI "${String(options.uri)}" is not an absolute URI (scheme:rest)`,
      "@Resource({ uri: 'file:///path/to/thing', ... })",
    );
    valid = false;
  }
  if (typeof options.name !== 'string' || options.name === '') {
    report('the resource has no name', "@Resource({ uri, name: 'short-name', ... })");
    valid = false;
  }
  if (!valid || !method) return undefined;
  const descriptor: Resource = withCommon({ uri: options.uri, name: options.name } as Resource, options);
  if (options.mimeType) descriptor.mimeType = options.mimeType;
  if (options.size !== undefined) descriptor.size = options.size;
  if (options.annotations) descriptor.annotations = { ...options.annotations };
  return Object.freeze({
    uri: options.uri,
    where: `${serverClass.name}.${args.methodName}`,
    serverClass,
    method,
    descriptor: deepFreeze(descriptor),
    methodName: args.methodName,
    pipeline: buildPipeline(serverClass, args.methodName, storage, report),
  });
}

/** A `@ResourceTemplate` method as a frozen definition, or undefined after reporting its problems. */
export function buildResourceTemplate(
  serverClass: Constructor,
  args: HandlerMetadataArgs<'resourceTemplate'>,
  storage: MetadataStorage,
  report: Report,
): ResourceTemplateDefinition | undefined {
  const { options } = args;
  const method = methodOf(serverClass, args, report);
  let template: UriTemplate | undefined;
  try {
    template = new UriTemplate(options.uriTemplate);
  } catch (error) {
    report(
      `the URI template "${String(options.uriTemplate)}" is invalid: ${(error as Error).message}`,
      "@ResourceTemplate({ uriTemplate: 'users://{id}/profile', ... })",
    );
  }
  if (typeof options.name !== 'string' || options.name === '')
    report('the resource template has no name', "@ResourceTemplate({ uriTemplate, name: 'short-name', ... })");
  const params = options.params ? explicitDto(options.params, 'params', report) : inferDtoParameter(args, 'params', report);
  if (!template || !method || params === undefined || !options.name) return undefined;

  const variables = template.variableNames;
  let properties: string[] = [];
  if (params) {
    const writer = new DtoSchemaWriter();
    const schema = writer.write(params);
    for (const problem of writer.problems) report(problem.message, problem.fix);
    properties = Object.keys((schema.properties as object) ?? {});
    for (const variable of variables) {
      if (!properties.includes(variable)) {
        report(
          `the URI template variable {${variable}} has no property in ${params.name}`,
          `add \`@IsString() ${variable}!: string;\` to ${params.name} (template variables arrive as strings)`,
        );
        return undefined;
      }
    }
  } else if (variables.length > 0) {
    report(
      `the URI template has variables (${variables.map((v) => `{${v}}`).join(', ')}) but the method takes no params DTO`,
      `take them as a DTO: \`read(params: MyParams, ctx: Context)\` with \`class MyParams { @IsString() ${variables[0]}!: string }\``,
    );
    return undefined;
  }
  const completions = buildCompletions(serverClass, params, storage, report);
  const descriptor: ResourceTemplateType = withCommon(
    { uriTemplate: options.uriTemplate, name: options.name } as ResourceTemplateType,
    options,
  );
  if (options.mimeType) descriptor.mimeType = options.mimeType;
  if (options.annotations) descriptor.annotations = { ...options.annotations };
  return Object.freeze({
    name: options.name,
    where: `${serverClass.name}.${args.methodName}`,
    serverClass,
    method,
    descriptor: deepFreeze(descriptor),
    template,
    ...(params ? { params } : {}),
    completions,
    methodName: args.methodName,
    pipeline: buildPipeline(serverClass, args.methodName, storage, report),
  });
}

/** A `@Prompt` method as a frozen definition, or undefined after reporting its problems. */
export function buildPrompt(
  serverClass: Constructor,
  args: HandlerMetadataArgs<'prompt'>,
  storage: MetadataStorage,
  report: Report,
): PromptDefinition | undefined {
  const { options } = args;
  const name = options.name ?? args.methodName;
  const method = methodOf(serverClass, args, report);
  let valid = method !== undefined;
  if (!NAME_PATTERN.test(name)) {
    report(
      `the prompt name "${name}" is invalid: a name is 1-128 characters of A-Z a-z 0-9 _ . -`,
      `@Prompt({ name: '${suggestName(name)}', ... })`,
    );
    valid = false;
  }
  if (typeof options.description !== 'string' || options.description.trim() === '') {
    report('the prompt has no description', `@Prompt({ description: 'What ${name} is for' })`);
    valid = false;
  }
  const dto = options.args ? explicitDto(options.args, 'args', report) : inferDtoParameter(args, 'args', report);
  if (dto === undefined || !valid || !method) return undefined;

  const promptArguments: PromptArgument[] = [];
  if (dto) {
    const writer = new DtoSchemaWriter();
    const schema = writer.write(dto);
    for (const problem of writer.problems) report(problem.message, problem.fix);
    const required = new Set((schema.required as string[] | undefined) ?? []);
    for (const [property, propertySchema] of Object.entries((schema.properties as Record<string, Record<string, unknown>>) ?? {})) {
      // Prompt arguments travel as strings (MCP PromptArgument); anything else cannot be sent.
      const type = propertySchema.type;
      if (type !== undefined && type !== 'string') {
        report(
          `${dto.name}.${property} is ${/^[aeiou]/.test(String(type)) ? 'an' : 'a'} ${String(type)}, but prompt arguments are strings`,
          `declare it \`@IsString() ${property}!: string;\` and convert inside the prompt (e.g. Number(args.${property}))`,
        );
        continue;
      }
      const argument: PromptArgument = { name: property, required: required.has(property) };
      if (typeof propertySchema.description === 'string') argument.description = propertySchema.description;
      promptArguments.push(argument);
    }
  }
  const completions = buildCompletions(serverClass, dto, storage, report);
  const descriptor: Prompt = withCommon({ name } as Prompt, options);
  if (dto) descriptor.arguments = promptArguments;
  return Object.freeze({
    name,
    where: `${serverClass.name}.${args.methodName}`,
    serverClass,
    method,
    descriptor: deepFreeze(descriptor),
    ...(dto ? { args: dto } : {}),
    completions,
    methodName: args.methodName,
    pipeline: buildPipeline(serverClass, args.methodName, storage, report),
  });
}

function buildCompletions(
  serverClass: Constructor,
  dto: Constructor | null | undefined,
  storage: MetadataStorage,
  report: Report,
): ReadonlyMap<string, CompletionDefinition> {
  const completions = new Map<string, CompletionDefinition>();
  if (!dto) return completions;
  for (const property of storage.fieldNamesOf(dto).concat(Object.keys(new DtoSchemaWriter().write(dto).properties ?? {}))) {
    if (completions.has(property)) continue;
    const found = storage.completionOf(dto, property);
    if (!found) continue;
    if (typeof found.source === 'function') {
      completions.set(property, Object.freeze({ kind: 'function' as const, fn: found.source }));
      continue;
    }
    const method = (serverClass.prototype as Record<string, unknown>)[found.source];
    if (typeof method !== 'function') {
      report(
        `@Complete('${found.source}') on ${dto.name}.${property} names no method of ${serverClass.name}`,
        `add \`${found.source}(value: string, context: CompletionRequestContext) { return [...] }\` to ${serverClass.name}`,
      );
      continue;
    }
    completions.set(property, Object.freeze({ kind: 'method' as const, serverClass, method: method as (...a: unknown[]) => unknown }));
  }
  return completions;
}
