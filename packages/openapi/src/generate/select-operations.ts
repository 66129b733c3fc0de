import type { OpenApiOperation, OpenApiParameter } from '../openapi-operation.js';
import { camelCase, pascalCase, sentenceCase, toolName } from './names.js';
import { type OpenApiDocument, OpenApiDocumentError, resolveRef } from './openapi-document.js';
import { type DtoBuilder, type DtoField, type SchemaObject } from './schema-to-dto.js';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** Which operations become tools: those with one of `tags`, and those named in `operations`. */
export interface OperationFilter {
  readonly tags?: readonly string[];
  readonly operations?: readonly string[];
}

/** One operation that becomes a tool. */
export interface ToolModel {
  readonly toolName: string;
  readonly methodName: string;
  /** The input DTO class; none for an operation without parameters or body. */
  readonly inputClass?: string;
  readonly description: string;
  readonly operation: OpenApiOperation;
}

interface ParameterObject {
  readonly name: string;
  readonly in: string;
  readonly required?: boolean;
  readonly description?: string;
  readonly schema?: SchemaObject;
}

interface OperationObject {
  readonly operationId?: string;
  readonly summary?: string;
  readonly description?: string;
  readonly tags?: readonly string[];
  readonly parameters?: readonly ParameterObject[];
  readonly requestBody?: {
    readonly required?: boolean;
    readonly description?: string;
    readonly content?: Record<string, { schema?: SchemaObject }>;
  };
  readonly responses?: Record<string, { readonly content?: Record<string, { schema?: SchemaObject }> }>;
}

const isJson = (mediaType: string) => /^application\/(.+\+)?json\b/i.test(mediaType);

/**
 * The operations of the document that pass the filter, each with its input DTO class added to
 * `dtos`. An operation the mapping cannot call (a non-JSON body, a required cookie) is left out
 * with a warning; a tag or operationId in the filter that the document lacks is an error.
 */
export function selectOperations(document: OpenApiDocument, filter: OperationFilter, dtos: DtoBuilder): ToolModel[] {
  const all: Array<{ path: string; method: (typeof METHODS)[number]; op: OperationObject; shared: readonly ParameterObject[] }> = [];
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    const shared = ((item.parameters as ParameterObject[] | undefined) ?? []).map((p) => resolveRef(document, p));
    for (const method of METHODS) {
      const op = item[method] as OperationObject | undefined;
      if (op) all.push({ path, method, op, shared });
    }
  }
  const idOf = (entry: (typeof all)[number]) => entry.op.operationId ?? `${entry.method}${pascalCase(entry.path)}`;
  const unknown = [
    ...(filter.tags ?? []).filter((tag) => !all.some((entry) => entry.op.tags?.includes(tag))).map((tag) => `tag "${tag}"`),
    ...(filter.operations ?? []).filter((id) => !all.some((entry) => idOf(entry) === id)).map((id) => `operationId "${id}"`),
  ];
  if (unknown.length > 0) {
    const tags = [...new Set(all.flatMap((entry) => entry.op.tags ?? []))];
    throw new OpenApiDocumentError(
      `the document has no ${unknown.join(', no ')}.\nIts tags: ${tags.join(', ') || '(none)'}\nIts operationIds: ${all.map(idOf).join(', ')}`,
    );
  }
  const filtered = filter.tags?.length || filter.operations?.length;
  const chosen = all.filter(
    (entry) => !filtered || entry.op.tags?.some((tag) => filter.tags?.includes(tag)) || filter.operations?.includes(idOf(entry)),
  );
  const tools: ToolModel[] = [];
  for (const entry of chosen) {
    const tool = toolOf(document, dtos, idOf(entry), entry.method, entry.path, entry.op, entry.shared);
    if (tool) tools.push(tool);
  }
  return tools;
}

function toolOf(
  document: OpenApiDocument,
  dtos: DtoBuilder,
  operationId: string,
  method: (typeof METHODS)[number],
  path: string,
  op: OperationObject,
  shared: readonly ParameterObject[],
): ToolModel | undefined {
  const inputClass = `${pascalCase(operationId)}Input`;
  // Inline objects of the arguments are named after the operation: CreatePetBody, CreatePetBodyAddress.
  const owner = pascalCase(operationId);
  // An operation's own parameter overrides a path-level one of the same name and place.
  const own = (op.parameters ?? []).map((p) => resolveRef(document, p));
  const parameters = [...shared.filter((p) => !own.some((o) => o.name === p.name && o.in === p.in)), ...own];
  const skip = (why: string) => {
    dtos.warnings.push(`${operationId} (${method.toUpperCase()} ${path}) is not generated: ${why}`);
    return undefined;
  };
  const fields: DtoField[] = [];
  const mapped: OpenApiParameter[] = [];
  const taken = new Set<string>();
  for (const parameter of parameters) {
    if (parameter.in === 'cookie') {
      if (parameter.required) return skip(`it needs the cookie "${parameter.name}"`);
      dtos.warnings.push(`${operationId}: the optional cookie "${parameter.name}" is not sent`);
      continue;
    }
    const field = camelCase(parameter.name) || 'value';
    if (taken.has(field)) return skip(`two parameters map to the argument "${field}"`);
    taken.add(field);
    const schema = { ...(parameter.schema ?? { type: 'string' }), description: parameter.description ?? parameter.schema?.description };
    const fallback = `${sentenceCase(parameter.name)}: the ${parameter.name} ${parameter.in} parameter of ${operationId}.`;
    fields.push(
      dtos.field(field, schema, parameter.in !== 'path' && !parameter.required, owner, `${operationId}.${parameter.name}`, fallback),
    );
    mapped.push({ name: parameter.name, in: parameter.in as OpenApiParameter['in'], field });
  }
  let body: string | undefined;
  const content = op.requestBody ? resolveRef(document, op.requestBody) : undefined;
  if (content?.content) {
    const json = Object.entries(content.content).find(([type]) => isJson(type));
    if (!json) return skip(`its request body is ${Object.keys(content.content).join(' or ')}, not JSON`);
    body = taken.has('body') ? 'requestBody' : 'body';
    const schema: SchemaObject = { ...(json[1].schema ?? {}), description: content.description ?? 'The request body.' };
    fields.push(dtos.field(body, schema, content.required !== true, owner, `${operationId}.body`));
  }
  if (fields.length > 0)
    dtos.addClass({ name: inputClass, doc: `The arguments of ${operationId}: ${method.toUpperCase()} ${path}.`, fields });
  return {
    toolName: toolName(operationId),
    methodName: camelCase(operationId) || `${method}Operation`,
    inputClass: fields.length > 0 ? inputClass : undefined,
    description: toolDescription(document, op, method, path),
    operation: {
      operationId,
      method: method.toUpperCase() as OpenApiOperation['method'],
      path,
      parameters: mapped,
      ...(body ? { body } : {}),
      structured: declaresObject(document, op),
    },
  };
}

/** Shortest description that tells a model when to call the tool (as `armature inspect` checks). */
const MIN_DESCRIPTION = 20;

/** The operation's summary and description; when they say too little, with its method, path and API too. */
function toolDescription(document: OpenApiDocument, op: OperationObject, method: string, path: string): string {
  const told = [op.summary, op.description].filter((text) => text !== undefined && text.trim() !== '').join('\n\n');
  if (told.length >= MIN_DESCRIPTION) return told;
  return `${told ? `${told.replace(/[\s.]+$/, '')}: ` : ''}${method.toUpperCase()} ${path} of ${document.info.title}.`;
}

/** Whether the first 2xx answer with a JSON body declares an object. */
function declaresObject(document: OpenApiDocument, op: OperationObject): boolean {
  const success = Object.entries(op.responses ?? {})
    .filter(([status]) => /^2/.test(status))
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([, response]) => resolveRef(document, response));
  for (const response of success) {
    const json = Object.entries(response.content ?? {}).find(([type]) => isJson(type));
    if (!json?.[1].schema) continue;
    const schema = resolveRef(document, json[1].schema);
    const types = schema.type === undefined ? [] : [schema.type].flat();
    return types.includes('object') || schema.properties !== undefined || schema.allOf !== undefined;
  }
  return false;
}
