import { type Resource, type ResourceTemplateType, UriTemplate } from '@modelcontextprotocol/server';
import type { Context } from '../context/context.js';
import type { Middleware } from '../context/execution-context.js';
import {
  EXTENSION_VIEW,
  type Extension,
  type ExtensionContext,
  type ExtensionHost,
  type ExtensionMethod,
  type ExtensionResource,
  type ExtensionResourceTemplate,
  type ExtensionViews,
} from '../context/extension.js';
import type { BuildProblem } from '../messages/build-error.js';
import { MESSAGES, type MessageDefinition, problem } from '../messages/message-catalog.js';
import type { Constructor } from '../metadata/metadata-args.js';
import { describeDto } from '../validation/dto-descriptor.js';
import { isPlainObject } from '../validation/plain-object.js';
import type { PlanContext } from './build-call-plan.js';
import type {
  CallPlan,
  ExtensionDefinition,
  ExtensionMethodDefinition,
  ResourceDefinition,
  ResourceTemplateDefinition,
} from './definitions.js';
import { deepFreeze, dtoInput } from './handler-build.js';

/** SEP-2133 extension identifiers: a reverse-DNS prefix, one slash, a name. */
const ID_PATTERN = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+\/[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$/;
const METHOD_PATTERN = /^(?=.{1,128}$)[A-Za-z0-9_.-]+(\/[A-Za-z0-9_.-]+)+$/;
const URI_SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;

/** Extension ids Armature serves itself, with what it serves them for. */
const RESERVED_IDS: Readonly<Record<string, string>> = {
  'io.modelcontextprotocol/tasks': 'the tasks extension Armature serves itself',
  'io.modelcontextprotocol/ui': 'MCP Apps, which Armature serves itself',
};

/**
 * The request methods MCP defines (both revisions) that Armature or the SDK answers: an extension
 * may not take one.
 */
const BUILT_IN_METHODS = new Set([
  'initialize',
  'ping',
  'server/discover',
  'logging/setLevel',
  'tools/list',
  'tools/call',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'resources/subscribe',
  'resources/unsubscribe',
  'prompts/list',
  'prompts/get',
  'completion/complete',
  'subscriptions/listen',
  'tasks/get',
  'tasks/result',
  'tasks/list',
  'tasks/cancel',
  'tasks/update',
  'sampling/createMessage',
  'elicitation/create',
  'roots/list',
]);

/** What the app's classes built, which extensions add to and read. */
export interface ExtensionCatalog {
  readonly serverClasses: readonly Constructor[];
  readonly tools: ReadonlyMap<string, unknown>;
  readonly resources: Map<string, ResourceDefinition>;
  readonly resourceTemplates: Map<string, ResourceTemplateDefinition>;
  readonly prompts: ReadonlyMap<string, unknown>;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `a string (${JSON.stringify(value)})`;
  return typeof value === 'object' ? 'an object' : String(value);
}

/** The Context's view for extension `id` (the runtime's Context makes it). */
function viewOf(ctx: Context, id: string): ExtensionContext {
  return (ctx as unknown as ExtensionViews)[EXTENSION_VIEW](id);
}

/**
 * The app's extensions, checked and planned at start-up: ids, settings, methods (each a plan under
 * the app's guards, interceptors and rate limits), middleware; then each one's `setup`, in the
 * order given, which may add resources and templates to `catalog`. Problems go to `problems`.
 */
export function buildExtensions(
  given: readonly unknown[] | undefined,
  planning: PlanContext,
  catalog: ExtensionCatalog,
  problems: BuildProblem[],
): readonly ExtensionDefinition[] {
  if (given === undefined) return Object.freeze([]);
  if (!Array.isArray(given)) {
    problems.push(problem(MESSAGES.extensionNotDefined, 'createMcpApp', describe(given)));
    return Object.freeze([]);
  }
  const ids = new Map<string, string>(Object.entries(RESERVED_IDS));
  const methodOwners = new Map<string, string>();
  const built: ExtensionDefinition[] = [];
  for (const [index, extension] of given.entries()) {
    if (!isPlainObject(extension) || (extension as { kind?: unknown }).kind !== 'armature.extension') {
      problems.push(problem(MESSAGES.extensionNotDefined, `createMcpApp extensions[${index}]`, describe(extension)));
      continue;
    }
    const definition = buildExtension(extension as unknown as Extension, index, planning, ids, methodOwners, problems);
    if (definition) built.push(definition);
  }
  for (const extension of built) runSetup(extension, planning, catalog, problems);
  return Object.freeze(built);
}

function buildExtension(
  extension: Extension,
  index: number,
  planning: PlanContext,
  ids: Map<string, string>,
  methodOwners: Map<string, string>,
  problems: BuildProblem[],
): ExtensionDefinition | undefined {
  const { id } = extension;
  const where = typeof id === 'string' ? `extension ${id}` : `createMcpApp extensions[${index}]`;
  const before = problems.length;
  const add = <A extends readonly unknown[]>(definition: MessageDefinition<A>, at: string, ...args: NoInfer<A>) =>
    problems.push(problem(definition, at, ...args));
  if (typeof id !== 'string' || !ID_PATTERN.test(id)) add(MESSAGES.extensionIdInvalid, where, JSON.stringify(id) ?? String(id));
  else if (ids.has(id)) add(MESSAGES.extensionIdTaken, where, id, ids.get(id) as string);
  else ids.set(id, `the extension listed at extensions[${index}]`);
  const { settings } = extension;
  if (settings !== undefined && (!isPlainObject(settings) || !isJson(settings)))
    add(MESSAGES.extensionSettingsInvalid, where, isPlainObject(settings) ? 'an object that is not plain JSON' : describe(settings));
  for (const hook of ['onRequest', 'setup'] as const) {
    const value = extension[hook];
    if (value !== undefined && typeof value !== 'function')
      add(MESSAGES.extensionMemberInvalid, where, hook, 'a function', describe(value));
  }
  // Guards and interceptors are told which class a call is for: an extension's is named after it.
  const className = `Extension(${String(id)})`;
  const serverClass = { [className]: class {} }[className] as Constructor;
  const methods = new Map<string, ExtensionMethodDefinition>();
  const given = extension.methods ?? {};
  if (!isPlainObject(given)) add(MESSAGES.extensionMemberInvalid, where, 'methods', 'an object of methods by name', describe(given));
  else {
    for (const [name, method] of Object.entries(given as Record<string, ExtensionMethod>)) {
      const at = `${where} method ${name}`;
      if (!METHOD_PATTERN.test(name) || name.startsWith('notifications/')) {
        add(MESSAGES.extensionMethodNameInvalid, at, name);
        continue;
      }
      const owner = BUILT_IN_METHODS.has(name) ? 'MCP itself' : methodOwners.get(name);
      if (owner) {
        add(MESSAGES.extensionMethodTaken, at, name, owner);
        continue;
      }
      methodOwners.set(name, `extension ${String(id)}`);
      const planned = methodOf(name, method, String(id), at, serverClass, planning, problems);
      if (planned) methods.set(name, planned);
    }
  }
  if (problems.length > before) return undefined;
  return Object.freeze({
    id,
    where,
    settings: deepFreeze(structuredClone(settings ?? {})),
    methods,
    ...(extension.onRequest ? { onRequest: extension.onRequest as Middleware } : {}),
    ...(extension.setup ? { setup: extension.setup.bind(extension) } : {}),
  });
}

function isJson(value: unknown): boolean {
  try {
    return JSON.stringify(value) !== undefined;
  } catch {
    return false;
  }
}

/** One method's definition: its plan runs `handle` with the request's extension view. */
function methodOf(
  name: string,
  method: unknown,
  id: string,
  where: string,
  serverClass: Constructor,
  planning: PlanContext,
  problems: BuildProblem[],
): ExtensionMethodDefinition | undefined {
  if (!isPlainObject(method) || typeof (method as { handle?: unknown }).handle !== 'function') {
    const found = isPlainObject(method) ? describe((method as { handle?: unknown }).handle) : describe(method);
    problems.push(problem(MESSAGES.extensionMemberInvalid, where, `methods['${name}'].handle`, 'a function', found));
    return undefined;
  }
  const { params, handle, requiresClientExtension, longLived } = method as unknown as ExtensionMethod;
  if (params !== undefined && typeof params !== 'function') {
    problems.push(problem(MESSAGES.extensionMemberInvalid, where, `methods['${name}'].params`, 'a DTO class', describe(params)));
    return undefined;
  }
  let input: CallPlan['input'] = RAW;
  if (params) {
    const descriptor = describeDto(params);
    for (const p of descriptor.problems) problems.push({ ...(p.code ? { code: p.code } : {}), where, message: p.message, fix: p.fix });
    input = dtoInput(descriptor);
  }
  const invoke: CallPlan['invoke'] = async (_instance, args, ctx) => {
    const view = viewOf(ctx, id);
    return withWrittenMeta(view, await handle(args as Record<string, unknown>, view));
  };
  return Object.freeze({
    name,
    requiresClientExtension: requiresClientExtension === true,
    longLived: longLived === true,
    plan: planOf(planning, serverClass, 'method', name, where, input, invoke),
  });
}

const RAW = Object.freeze({ kind: 'raw' as const });

/** A plan under the app's guards, interceptors, rate limits and tags (as a remote part's entries). */
function planOf(
  planning: PlanContext,
  serverClass: Constructor,
  kind: CallPlan['kind'],
  name: string,
  where: string,
  input: CallPlan['input'],
  invoke: CallPlan['invoke'],
): CallPlan {
  return Object.freeze({ ...planning.sharedBase(serverClass), kind, name, where, methodName: name, input, needsInstance: false, invoke });
}

/** The handler's result with the `_meta` keys the extension wrote (its other `_meta` keys kept). */
function withWrittenMeta(view: ExtensionContext, value: unknown): unknown {
  const written = (view as { readonly written?: Record<string, unknown> }).written;
  if (!written || !isPlainObject(value)) return value;
  const result = value as Record<string, unknown>;
  return { ...result, _meta: { ...(isPlainObject(result._meta) ? (result._meta as object) : {}), ...written } };
}

/** Runs an extension's `setup` with a host that adds to the catalog; a throw is reported, not raised. */
function runSetup(extension: ExtensionDefinition, planning: PlanContext, catalog: ExtensionCatalog, problems: BuildProblem[]): void {
  if (!extension.setup) return;
  const { id, where } = extension;
  const className = `Extension(${id})`;
  const serverClass = { [className]: class {} }[className] as Constructor;
  const host: ExtensionHost = {
    extensionId: id,
    resource: (resource: ExtensionResource) => {
      const at = `${where} resource ${String(resource?.uri)}`;
      if (typeof resource?.uri !== 'string' || !URI_SCHEME.test(resource.uri)) {
        problems.push(problem(MESSAGES.resourceUriInvalid, at, String(resource?.uri)));
        return;
      }
      if (typeof resource.name !== 'string' || resource.name === '') {
        problems.push(problem(MESSAGES.nameMissing, at, 'resource'));
        return;
      }
      const clash = catalog.resources.get(resource.uri);
      if (clash) {
        problems.push(problem(MESSAGES.duplicateName, at, 'resource', resource.uri, clash.where));
        return;
      }
      const { read, ...fields } = resource;
      const descriptor = deepFreeze(structuredClone(fields) as Resource);
      const invoke: CallPlan['invoke'] = (_instance, _input, ctx) => read(viewOf(ctx, id));
      catalog.resources.set(
        resource.uri,
        Object.freeze({
          uri: resource.uri,
          where: at,
          serverClass,
          descriptor,
          methodName: resource.uri,
          plan: planOf(planning, serverClass, 'resource', resource.uri, at, RAW, invoke),
        }),
      );
    },
    resourceTemplate: (template: ExtensionResourceTemplate) => {
      const at = `${where} resource template ${String(template?.name)}`;
      let parsed: UriTemplate;
      try {
        parsed = new UriTemplate(template.uriTemplate);
      } catch (error) {
        problems.push(problem(MESSAGES.uriTemplateInvalid, at, String(template?.uriTemplate), (error as Error).message));
        return;
      }
      if (typeof template.name !== 'string' || template.name === '') {
        problems.push(problem(MESSAGES.nameMissing, at, 'resourceTemplate'));
        return;
      }
      const clash = catalog.resourceTemplates.get(template.uriTemplate);
      if (clash) {
        problems.push(problem(MESSAGES.duplicateName, at, 'resourceTemplate', template.uriTemplate, clash.where));
        return;
      }
      const { read, ...fields } = template;
      const descriptor = deepFreeze(structuredClone(fields) as ResourceTemplateType);
      // The template's variables come from the URI the client sent: strings, handed on as they are.
      const invoke: CallPlan['invoke'] = (_instance, variables, ctx) => {
        const view = viewOf(ctx, id);
        return read(parsed.expand(variables as Record<string, string>), variables as Record<string, string>, view);
      };
      catalog.resourceTemplates.set(
        template.uriTemplate,
        Object.freeze({
          name: template.name,
          where: at,
          serverClass,
          descriptor,
          template: parsed,
          completions: new Map(),
          methodName: template.name,
          plan: planOf(planning, serverClass, 'resourceTemplate', template.name, at, RAW, invoke),
        }),
      );
    },
    get catalog() {
      return {
        serverClasses: catalog.serverClasses,
        tools: [...catalog.tools.keys()],
        resources: [...catalog.resources.keys()],
        resourceTemplates: [...catalog.resourceTemplates.keys()],
        prompts: [...catalog.prompts.keys()],
      };
    },
    problem: (message: string, fix: string) => {
      problems.push(problem(MESSAGES.extensionProblem, where, String(message), String(fix)));
    },
  };
  try {
    extension.setup(host);
  } catch (error) {
    problems.push(problem(MESSAGES.extensionSetupFailed, where, error instanceof Error ? error.message : String(error)));
  }
}
