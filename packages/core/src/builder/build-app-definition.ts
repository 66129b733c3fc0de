import type { Guard, Interceptor, Provided } from '../context/execution-context.js';
import type { Extension } from '../context/extension.js';
import type { ContainerAdapter } from '../di/container-adapter.js';
import { ArmatureBuildError, type BuildProblem } from '../messages/build-error.js';
import { MESSAGES, problem } from '../messages/message-catalog.js';
import type { ArgumentLimits, Constructor } from '../metadata/metadata-args.js';
import { getMetadataStorage, type MetadataStorage } from '../metadata/metadata-storage.js';
import type { RateLimitRule } from '../metadata/rate-limit-rule.js';
import { partPlanning, remotePartsOf } from './app-parts.js';
import { PlanContext } from './build-call-plan.js';
import { buildExtensions } from './build-extensions.js';
import type { AppDefinition } from './definitions.js';
import { HandlerCatalog } from './handler-catalog.js';
import { type AppPart, classesOf, MountedPart } from './mounted-part.js';
import { RemoteServerRef } from './remote-server.js';
import { prepareContainer, servedClasses } from './served-classes.js';

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
 * trip over (DI included), then sets up the extensions (Armature's own, `builtIn`, first). Reports
 * every problem at once in one `ArmatureBuildError`. It reads the storage and reflection, and
 * changes neither.
 */
export function buildAppDefinition(
  parts: readonly AppPart[],
  options: BuildOptions = {},
  storage: MetadataStorage = getMetadataStorage(),
  builtIn: readonly Extension[] = [],
): AppDefinition {
  const entries = classesOf(parts);
  const serverClasses = entries.map((entry) => entry.serverClass);
  const problems: BuildProblem[] = [];
  const requestScoped = storage.requestScopedClasses();
  const remote = parts.some((part) => part instanceof RemoteServerRef || (part instanceof MountedPart && part.remote !== undefined));
  if (serverClasses.length === 0 && !remote) problems.push(problem(MESSAGES.noServerClass, 'createMcpApp'));
  // Problems are listed in the order the classes were given, the container's last.
  const { served, refusals } = servedClasses(serverClasses, storage);
  const containerProblems = prepareContainer(options.container, served, requestScoped);
  const planning = new PlanContext(storage, options.container, problems, options);
  const planned = partPlanning(parts, planning, problems);
  const remoteParts = remotePartsOf(parts, planning, planned, problems);
  const catalog = new HandlerCatalog(storage, problems, options.limits);
  const instructions: string[] = [];
  for (const [index, { serverClass, part }] of entries.entries()) {
    const refused = refusals.get(index);
    if (refused) {
      problems.push(refused);
      continue;
    }
    const server = storage.findServer(serverClass);
    if (server?.options.instructions) instructions.push(server.options.instructions);
    catalog.add(serverClass, part, part ? (planned.get(part) as PlanContext) : planning);
  }
  // After the classes, so that an extension's setup reads (and adds to) what they serve.
  const extensions = buildExtensions(options.extensions, planning, { ...catalog, serverClasses: served }, problems, builtIn);
  problems.push(...containerProblems);
  if (problems.length > 0) throw new ArmatureBuildError(problems);

  const { tools, resources, resourceTemplates, prompts } = catalog;
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
