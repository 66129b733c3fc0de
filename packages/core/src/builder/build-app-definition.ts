import type { Guard, Interceptor, Provided } from '../context/execution-context.js';
import type { Extension } from '../context/extension.js';
import type { ContainerAdapter } from '../di/container-adapter.js';
import { ArmatureBuildError, type BuildProblem } from '../messages/build-error.js';
import { MESSAGES, problem } from '../messages/message-catalog.js';
import type { ArgumentLimits, Constructor, HandlerKind, HandlerMetadataArgs } from '../metadata/metadata-args.js';
import { getMetadataStorage, type MetadataStorage } from '../metadata/metadata-storage.js';
import { prototypeChain } from '../metadata/prototype-chain.js';
import type { RateLimitRule } from '../metadata/rate-limit-rule.js';
import { checkAppResources } from './build-app-ui.js';
import { PlanContext } from './build-call-plan.js';
import { buildExtensions } from './build-extensions.js';
import { buildPrompt } from './build-prompt.js';
import { buildResource, buildResourceTemplate } from './build-resources.js';
import { buildTool } from './build-tool.js';
import type {
  AppDefinition,
  PartNaming,
  PromptDefinition,
  RemotePartDefinition,
  ResourceDefinition,
  ResourceTemplateDefinition,
  ToolDefinition,
} from './definitions.js';
import { NAME_PATTERN } from './handler-build.js';
import { type AppPart, classesOf, MountedPart, PREFIX_PATTERN, renamed, resourceIn, templateIn, unprefixed } from './mounted-part.js';
import { RemoteServerRef } from './remote-server.js';

export interface BuildOptions {
  /** Overrides the server info taken from the first `@McpServer` class. */
  info?: { name: string; version: string; title?: string };
  /** Instructions; by default those of every served class, joined by blank lines. */
  instructions?: string;
  /** App-wide argument limits (each `@Tool({ limits })` may override). */
  limits?: ArgumentLimits;
  /** Guards for every tool, resource and prompt, before class and method guards. */
  guards?: Provided<Guard>[];
  /** Interceptors around every call, outside class and method interceptors. */
  interceptors?: Provided<Interceptor>[];
  /**
   * Rate limits for every tool, resource, prompt and completion call, each its own count, checked
   * before those of `@RateLimit`. E.g. `[{ limit: 100, windowMs: 60_000, by: ['principal'] }]`.
   */
  rateLimits?: RateLimitRule[];
  /**
   * The DI container the app will use: its `prepare()` problems are reported with the builder's,
   * and it decides which guard and interceptor classes are resolved per request.
   */
  container?: ContainerAdapter;
  /**
   * Extensions (`defineExtension`): their capabilities, methods, middleware and what their setup
   * adds, served under the app's guards, interceptors and rate limits. See docs/extensions.md.
   */
  extensions?: readonly Extension[];
}

/**
 * Turns the recorded metadata of the server classes in `parts` (given as is, or mounted under a
 * prefix) into frozen definitions and call plans, checking everything a request would otherwise
 * trip over (DI included). Reports every problem at once in one `ArmatureBuildError`. It reads the
 * storage and reflection, and changes neither.
 */
export function buildAppDefinition(
  parts: readonly AppPart[],
  options: BuildOptions = {},
  storage: MetadataStorage = getMetadataStorage(),
): AppDefinition {
  const entries = classesOf(parts);
  const serverClasses = entries.map((entry) => entry.serverClass);
  const problems: BuildProblem[] = [];
  const tools = new Map<string, ToolDefinition>();
  const resources = new Map<string, ResourceDefinition>();
  const resourceTemplates = new Map<string, ResourceTemplateDefinition>();
  const prompts = new Map<string, PromptDefinition>();
  const instructions: string[] = [];
  const served: Constructor[] = [];
  const requestScoped = storage.requestScopedClasses();

  // Which classes can be served is settled first, so the container learns them before the plans
  // are built (it decides which guard and interceptor classes it provides). Problems are still
  // listed in the order the classes were given, the container's last.
  const remoteMounts = parts.filter((part): part is MountedPart => part instanceof MountedPart && part.remote !== undefined);
  const bareRemotes = parts.filter((part): part is RemoteServerRef => part instanceof RemoteServerRef);
  if (serverClasses.length + remoteMounts.length + bareRemotes.length === 0) problems.push(problem(MESSAGES.noServerClass, 'createMcpApp'));
  const refusals = new Map<number, BuildProblem>();
  serverClasses.forEach((serverClass, index) => {
    if (typeof serverClass !== 'function') refusals.set(index, problem(MESSAGES.notAClass, 'createMcpApp', String(serverClass)));
    else if (served.includes(serverClass)) refusals.set(index, problem(MESSAGES.listedTwice, serverClass.name));
    else if (!storage.findServer(serverClass)) refusals.set(index, problem(MESSAGES.notDecorated, serverClass.name, serverClass.name));
    else served.push(serverClass);
  });
  const containerProblems = prepareContainer(options.container, served, requestScoped);
  const planning = new PlanContext(storage, options.container, problems, options);
  const partPlanning = new Map<MountedPart, PlanContext>();
  for (const part of parts) {
    if (!(part instanceof MountedPart) || partPlanning.has(part)) continue;
    if (typeof part.prefix !== 'string' || !PREFIX_PATTERN.test(part.prefix))
      problems.push(problem(MESSAGES.mountPrefixInvalid, part.where, String(part.prefix)));
    partPlanning.set(part, planning.forPart(part));
  }
  const remoteParts = [
    ...remoteMounts.map((part) =>
      remotePart(
        part.remote as RemoteServerRef,
        part,
        partPlanning.get(part) as PlanContext,
        parts.some((other) => other !== part && other instanceof MountedPart && other.prefix === part.prefix),
        problems,
      ),
    ),
    ...bareRemotes.map((remote) => remotePart(remote, unprefixed(remote), planning, false, problems)),
  ];
  /** The part each served definition is mounted in, for collision messages. */
  const partOf = new Map<string, MountedPart | undefined>();

  /** Adds a built definition under its key, or reports the handler it clashes with. */
  const register = <D extends { where: string }>(
    kind: HandlerKind,
    into: Map<string, D>,
    key: string,
    built: D | undefined,
    part: MountedPart | undefined,
  ) => {
    if (!built) return;
    const clash = into.get(key);
    const clashPart = partOf.get(`${kind} ${key}`);
    if (clash && (part || clashPart))
      problems.push(
        problem(MESSAGES.mountedNameClash, built.where, kind, key, built.where, part?.where ?? '', clash.where, clashPart?.where ?? ''),
      );
    else if (clash) problems.push(problem(MESSAGES.duplicateName, built.where, kind, key, clash.where));
    else {
      into.set(key, built);
      partOf.set(`${kind} ${key}`, part);
    }
  };
  /** A tool or prompt renamed into its part, its new name checked against the spec's rules. */
  const named = <D extends ToolDefinition | PromptDefinition>(
    kind: 'tool' | 'prompt',
    built: D | undefined,
    part: MountedPart | undefined,
  ) => {
    if (!built || !part) return built;
    const served = renamed(built, part);
    if (NAME_PATTERN.test(served.name)) return served;
    problems.push(problem(MESSAGES.invalidName, built.where, kind, served.name, served.name.slice(0, 128)));
    return undefined;
  };
  /** A resource or template moved into its part, or undefined after reporting a URI without scheme. */
  const placed = <D extends ResourceDefinition | ResourceTemplateDefinition>(
    built: D | undefined,
    part: MountedPart | undefined,
    move: (definition: D, part: MountedPart) => D | undefined,
  ) => {
    if (!built || !part) return built;
    const served = move(built, part);
    if (!served) {
      const uri = 'uri' in built ? built.uri : built.descriptor.uriTemplate;
      problems.push(problem(MESSAGES.mountedUriWithoutScheme, built.where, uri, part.where));
    }
    return served;
  };
  for (const [index, { serverClass, part }] of entries.entries()) {
    const refused = refusals.get(index);
    if (refused) {
      problems.push(refused);
      continue;
    }
    const context = part ? (partPlanning.get(part) as PlanContext) : planning;
    const server = storage.findServer(serverClass);
    if (server?.options.instructions) instructions.push(server.options.instructions);
    for (const args of handlersOfChain(serverClass, storage, 'tool')) {
      const built = named('tool', buildTool(context, serverClass, args, options.limits), part);
      register('tool', tools, built?.name ?? '', built, part);
    }
    for (const args of handlersOfChain(serverClass, storage, 'resource')) {
      const built = placed(buildResource(context, serverClass, args), part, resourceIn);
      register('resource', resources, built?.uri ?? '', built, part);
    }
    for (const args of handlersOfChain(serverClass, storage, 'resourceTemplate')) {
      const built = placed(buildResourceTemplate(context, serverClass, args), part, templateIn);
      register('resourceTemplate', resourceTemplates, built?.descriptor.uriTemplate ?? '', built, part);
    }
    for (const args of handlersOfChain(serverClass, storage, 'prompt')) {
      const built = named('prompt', buildPrompt(context, serverClass, args), part);
      register('prompt', prompts, built?.name ?? '', built, part);
    }
  }

  // After the classes, so that an extension's setup reads (and adds to) what they serve.
  const extensions = buildExtensions(
    options.extensions,
    planning,
    { serverClasses: served, tools, resources, resourceTemplates, prompts },
    problems,
  );
  checkAppResources(tools.values(), resources, problems);
  problems.push(...containerProblems);
  if (problems.length > 0) throw new ArmatureBuildError(problems);

  const first = storage.findServer(serverClasses[0] as Constructor)?.options;
  const info = options.info ?? { name: first?.name ?? 'armature', version: first?.version ?? '0.0.0', title: first?.title };
  return Object.freeze({
    info: Object.freeze({ ...info, ...(first?.icons ? { icons: first.icons } : {}) }),
    instructions: options.instructions ?? (instructions.length > 0 ? instructions.join('\n\n') : undefined),
    serverClasses: Object.freeze([...serverClasses]),
    requestScoped: Object.freeze(requestScoped),
    tools,
    toolList: Object.freeze([...tools.values()].map((tool) => tool.descriptor)),
    resources,
    resourceTemplates: Object.freeze([...resourceTemplates.values()]),
    prompts,
    remoteParts: Object.freeze(remoteParts),
    extensions,
  });
}

/**
 * A remote part as planned at start-up: its options checked, its prefix its own (its names are
 * only known once it answers, so a clash could not be reported now), and what its plans share.
 */
function remotePart(
  remote: RemoteServerRef,
  naming: PartNaming,
  planning: PlanContext,
  prefixShared: boolean,
  problems: BuildProblem[],
): RemotePartDefinition {
  const invalid = remote.problem();
  if (invalid) problems.push(problem(MESSAGES.remoteServerInvalid, naming.where, invalid, naming.where));
  if (prefixShared) problems.push(problem(MESSAGES.remotePrefixShared, naming.where, naming.where));
  // Guards and interceptors are told which class a call is for: a remote part's is named after it.
  const name = naming.prefix ? `Remote(${naming.prefix})` : 'Remote';
  const serverClass = { [name]: class {} }[name] as Constructor;
  const guards = planning.appGuards;
  return Object.freeze({
    naming,
    remote,
    base: Object.freeze({
      serverClass,
      guards,
      interceptors: planning.appInterceptors,
      scopes: Object.freeze([]),
      guarded: guards.length > 0,
      rateLimits: planning.appRateLimits,
      tags: planning.partTags,
    }),
  });
}

/** The container's own start-up problems (returned, or thrown as an `ArmatureBuildError`). */
function prepareContainer(
  container: ContainerAdapter | undefined,
  servers: readonly Constructor[],
  requestScoped: readonly Constructor[],
): readonly BuildProblem[] {
  if (!container?.prepare) return [];
  try {
    return container.prepare({ servers, requestScoped }) ?? [];
  } catch (error) {
    if (error instanceof ArmatureBuildError) return error.problems;
    return [problem(MESSAGES.containerPrepareFailed, 'container', error instanceof Error ? error.message : String(error))];
  }
}

/** Handler methods of one kind on the class and its ancestors; a method re-decorated in a subclass wins. */
function handlersOfChain<K extends HandlerKind>(serverClass: Constructor, storage: MetadataStorage, kind: K): HandlerMetadataArgs<K>[] {
  const byMethod = new Map<string, HandlerMetadataArgs<K>>();
  for (const target of prototypeChain(serverClass).reverse()) {
    for (const handler of storage.handlersOf(target, kind)) {
      byMethod.delete(handler.methodName);
      byMethod.set(handler.methodName, handler);
    }
  }
  return [...byMethod.values()];
}
