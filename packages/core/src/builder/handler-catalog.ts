import type { BuildProblem } from '../messages/build-error.js';
import { MESSAGES, problem } from '../messages/message-catalog.js';
import type { ArgumentLimits, Constructor, HandlerKind, HandlerMetadataArgs } from '../metadata/metadata-args.js';
import type { MetadataStorage } from '../metadata/metadata-storage.js';
import { prototypeChain } from '../metadata/prototype-chain.js';
import type { PlanContext } from './build-call-plan.js';
import { buildPrompt } from './build-prompt.js';
import { buildResource, buildResourceTemplate } from './build-resources.js';
import { buildTool } from './build-tool.js';
import type { PromptDefinition, ResourceDefinition, ResourceTemplateDefinition, ToolDefinition } from './definitions.js';
import type { Declared } from './extension-host.js';
import { NAME_PATTERN } from './handler-build.js';
import { type MountedPart, renamed, resourceIn, templateIn } from './mounted-part.js';

// The app's tools, resources, templates and prompts as its classes declare them: each built, moved
// into its mounted part, and registered under its name or URI, a clash reported against both.

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

/** What the app's classes serve, filled class by class (`add`). */
export class HandlerCatalog {
  readonly tools = new Map<string, ToolDefinition>();
  readonly resources = new Map<string, ResourceDefinition>();
  readonly resourceTemplates = new Map<string, ResourceTemplateDefinition>();
  readonly prompts = new Map<string, PromptDefinition>();
  /** The decorator options of each tool and resource, and how its part moves URIs (for extensions). */
  readonly declared = new Map<string, Declared>();
  /** The part each served definition is mounted in, for collision messages. */
  private readonly partOf = new Map<string, MountedPart | undefined>();

  constructor(
    private readonly storage: MetadataStorage,
    private readonly problems: BuildProblem[],
    private readonly limits: ArgumentLimits | undefined,
  ) {}

  /** Builds and registers every handler of `serverClass` (mounted in `part`, if any). */
  add(serverClass: Constructor, part: MountedPart | undefined, context: PlanContext): void {
    const { storage } = this;
    const servedUri = part ? (uri: string) => part.uri(uri) : (uri: string) => uri;
    for (const args of handlersOfChain(serverClass, storage, 'tool')) {
      const built = this.named('tool', buildTool(context, serverClass, args, this.limits), part);
      if (this.register('tool', this.tools, built?.name ?? '', built, part))
        this.declared.set(`tool ${built?.name}`, { options: args.options as Record<string, unknown>, servedUri });
    }
    for (const args of handlersOfChain(serverClass, storage, 'resource')) {
      const built = this.placed(buildResource(context, serverClass, args), part, resourceIn);
      if (this.register('resource', this.resources, built?.uri ?? '', built, part))
        this.declared.set(`resource ${built?.uri}`, { options: args.options as Record<string, unknown>, servedUri });
    }
    for (const args of handlersOfChain(serverClass, storage, 'resourceTemplate')) {
      const built = this.placed(buildResourceTemplate(context, serverClass, args), part, templateIn);
      this.register('resourceTemplate', this.resourceTemplates, built?.descriptor.uriTemplate ?? '', built, part);
    }
    for (const args of handlersOfChain(serverClass, storage, 'prompt')) {
      const built = this.named('prompt', buildPrompt(context, serverClass, args), part);
      this.register('prompt', this.prompts, built?.name ?? '', built, part);
    }
  }

  /** Adds a built definition under its key, or reports the handler it clashes with; true when added. */
  private register<D extends { where: string }>(
    kind: HandlerKind,
    into: Map<string, D>,
    key: string,
    built: D | undefined,
    part: MountedPart | undefined,
  ): boolean {
    if (!built) return false;
    const clash = into.get(key);
    const clashPart = this.partOf.get(`${kind} ${key}`);
    if (clash && (part || clashPart))
      this.problems.push(
        problem(MESSAGES.mountedNameClash, built.where, kind, key, built.where, part?.where ?? '', clash.where, clashPart?.where ?? ''),
      );
    else if (clash) this.problems.push(problem(MESSAGES.duplicateName, built.where, kind, key, clash.where));
    else {
      into.set(key, built);
      this.partOf.set(`${kind} ${key}`, part);
      return true;
    }
    return false;
  }

  /** A tool or prompt renamed into its part, its new name checked against the spec's rules. */
  private named<D extends ToolDefinition | PromptDefinition>(kind: 'tool' | 'prompt', built: D | undefined, part: MountedPart | undefined) {
    if (!built || !part) return built;
    const served = renamed(built, part);
    if (NAME_PATTERN.test(served.name)) return served;
    this.problems.push(problem(MESSAGES.invalidName, built.where, kind, served.name, served.name.slice(0, 128)));
    return undefined;
  }

  /** A resource or template moved into its part, or undefined after reporting a URI without scheme. */
  private placed<D extends ResourceDefinition | ResourceTemplateDefinition>(
    built: D | undefined,
    part: MountedPart | undefined,
    move: (definition: D, part: MountedPart) => D | undefined,
  ) {
    if (!built || !part) return built;
    const served = move(built, part);
    if (!served) {
      const uri = 'uri' in built ? built.uri : built.descriptor.uriTemplate;
      this.problems.push(problem(MESSAGES.mountedUriWithoutScheme, built.where, uri, part.where));
    }
    return served;
  }
}
