import type { Middleware } from '../context/execution-context.js';
import type { Extension, ExtensionContext, ExtensionMethod } from '../context/extension.js';
import { LEGACY_REVISION, MODERN_REVISION } from '../context/revisions.js';
import type { BuildProblem } from '../messages/build-error.js';
import { MESSAGES, type MessageDefinition, problem } from '../messages/message-catalog.js';
import type { Constructor } from '../metadata/metadata-args.js';
import { describeDto } from '../validation/dto-descriptor.js';
import { isPlainObject } from '../validation/plain-object.js';
import type { PlanContext } from './build-call-plan.js';
import type { CallPlan, ExtensionDefinition, ExtensionMethodDefinition } from './definitions.js';
import { type ExtensionCatalog, setUp } from './extension-host.js';
import { extensionClass, planOf, RAW, viewOf } from './extension-plans.js';
import { describe, isJsonObject } from './extension-values.js';
import { deepFreeze, dtoInput } from './handler-build.js';

/** SEP-2133 extension identifiers: a reverse-DNS prefix, one slash, a name. */
const ID_PATTERN = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+\/[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$/;
const METHOD_PATTERN = /^(?=.{1,128}$)[A-Za-z0-9_.-]+(\/[A-Za-z0-9_.-]+)+$/;

/** Extension ids Armature serves itself, with what it serves them for. */
const RESERVED_IDS: Readonly<Record<string, string>> = {
  'io.modelcontextprotocol/tasks': 'the tasks extension Armature serves itself',
  'io.modelcontextprotocol/ui': 'MCP Apps, which Armature serves itself',
};

/** The revisions a method may be served on (`revisions`). */
const REVISIONS: readonly string[] = [LEGACY_REVISION, MODERN_REVISION];

/**
 * The request methods MCP defines (both revisions) that Armature or the SDK answers: an extension
 * may not take one. The task methods are the tasks extension's (set up first, so it owns them).
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
  'sampling/createMessage',
  'elicitation/create',
  'roots/list',
]);

/**
 * The app's extensions, checked and planned at start-up: ids, settings, methods (each a plan under
 * the app's guards, interceptors and rate limits), middleware, hooks; then each one's `setup`,
 * Armature's own (`builtIn`, e.g. MCP Apps) first, then the app's in the order given, which may
 * add to and change `catalog`. Problems go to `problems`.
 */
export function buildExtensions(
  given: readonly unknown[] | undefined,
  planning: PlanContext,
  catalog: ExtensionCatalog,
  problems: BuildProblem[],
  builtIn: readonly Extension[] = [],
): readonly ExtensionDefinition[] {
  if (given !== undefined && !Array.isArray(given)) {
    problems.push(problem(MESSAGES.extensionNotDefined, 'createMcpApp', describe(given)));
    given = undefined;
  }
  const ids = new Map<string, string>(Object.entries(RESERVED_IDS));
  const methodOwners = new Map<string, string>();
  const built: ExtensionDefinition[] = [];
  for (const extension of builtIn) {
    const definition = buildExtension(extension, undefined, planning, ids, methodOwners, problems);
    if (definition) built.push(definition);
  }
  for (const [index, extension] of (given ?? []).entries()) {
    if (!isPlainObject(extension) || (extension as { kind?: unknown }).kind !== 'armature.extension') {
      problems.push(problem(MESSAGES.extensionNotDefined, `createMcpApp extensions[${index}]`, describe(extension)));
      continue;
    }
    const definition = buildExtension(extension as unknown as Extension, index, planning, ids, methodOwners, problems);
    if (definition) built.push(definition);
  }
  return Object.freeze(built.map((extension) => setUp(extension, planning, catalog, problems)));
}

/** `index`: where the app listed it; undefined for one of Armature's own (its id is reserved for it). */
function buildExtension(
  extension: Extension,
  index: number | undefined,
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
  else if (index !== undefined && ids.has(id)) add(MESSAGES.extensionIdTaken, where, id, ids.get(id) as string);
  else if (index !== undefined) ids.set(id, `the extension listed at extensions[${index}]`);
  const { settings } = extension;
  if (settings !== undefined && !isJsonObject(settings))
    add(MESSAGES.extensionSettingsInvalid, where, isPlainObject(settings) ? 'an object that is not plain JSON' : describe(settings));
  for (const hook of ['onRequest', 'onToolCall', 'setup', 'accepts', 'close'] as const) {
    const value = extension[hook];
    if (value !== undefined && typeof value !== 'function')
      add(MESSAGES.extensionMemberInvalid, where, hook, 'a function', describe(value));
  }
  const serverClass = extensionClass(String(id));
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
    ...(extension.onToolCall ? { onToolCall: extension.onToolCall.bind(extension) } : {}),
    ...(extension.setup ? { setup: extension.setup.bind(extension) } : {}),
    ...(extension.accepts ? { accepts: extension.accepts.bind(extension) } : {}),
    ...(extension.close ? { close: extension.close.bind(extension) } : {}),
  });
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
  const { params, handle, requiresClientExtension, longLived, revisions } = method as unknown as ExtensionMethod;
  if (params !== undefined && typeof params !== 'function') {
    problems.push(problem(MESSAGES.extensionMemberInvalid, where, `methods['${name}'].params`, 'a DTO class', describe(params)));
    return undefined;
  }
  if (revisions !== undefined && !(Array.isArray(revisions) && revisions.length > 0 && revisions.every((r) => REVISIONS.includes(r)))) {
    const expected = `a non-empty list of ${REVISIONS.map((r) => `'${r}'`).join(' and ')}`;
    const found = Array.isArray(revisions) ? JSON.stringify(revisions) : describe(revisions);
    problems.push(problem(MESSAGES.extensionMemberInvalid, where, `methods['${name}'].revisions`, expected, found));
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
    ...(revisions ? { revisions: Object.freeze([...revisions]) } : {}),
    plan: planOf(planning, serverClass, 'method', name, where, input, invoke),
  });
}

/** The handler's result with the `_meta` keys the extension wrote (its other `_meta` keys kept). */
function withWrittenMeta(view: ExtensionContext, value: unknown): unknown {
  const written = (view as { readonly written?: Record<string, unknown> }).written;
  if (!written || !isPlainObject(value)) return value;
  const result = value as Record<string, unknown>;
  return { ...result, _meta: { ...(isPlainObject(result._meta) ? (result._meta as object) : {}), ...written } };
}
