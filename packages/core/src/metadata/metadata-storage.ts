import type {
  CompletionMetadataArgs,
  Constructor,
  FieldMetadataArgs,
  HandlerKind,
  HandlerMetadataArgs,
  PipelineMetadataArgs,
  ServerMetadataArgs,
} from './metadata-args.js';
import { prototypeChain } from './prototype-chain.js';

/**
 * The one place decorators write to. Decorators only record; the builder reads a snapshot of this
 * storage once at start-up, and the runtime never touches it.
 */
export class MetadataStorage {
  private servers = new Map<Constructor, ServerMetadataArgs>();
  private handlers: HandlerMetadataArgs[] = [];
  private completions = new Map<Constructor, Map<string, CompletionMetadataArgs>>();
  private fields = new Map<Constructor, Map<string, FieldMetadataArgs>>();
  private requestScoped = new Set<Constructor>();
  private pipeline: PipelineMetadataArgs[] = [];
  /** Skill folders a server class declares (`@Skills`), as written (checked when served). */
  private skillFolders = new Map<Constructor, unknown[]>();

  collectServer(args: ServerMetadataArgs): void {
    this.servers.set(args.target, Object.freeze(args));
  }

  collectHandler(args: HandlerMetadataArgs): void {
    this.handlers.push(Object.freeze(args));
  }

  collectCompletion(args: CompletionMetadataArgs): void {
    let byName = this.completions.get(args.target);
    if (!byName) {
      byName = new Map();
      this.completions.set(args.target, byName);
    }
    byName.set(args.propertyName, Object.freeze(args));
  }

  collectField(args: FieldMetadataArgs): void {
    let byName = this.fields.get(args.target);
    if (!byName) {
      byName = new Map();
      this.fields.set(args.target, byName);
    }
    byName.set(args.propertyName, Object.freeze(args));
  }

  collectPipeline(args: PipelineMetadataArgs): void {
    this.pipeline.push(Object.freeze(args));
  }

  /**
   * Guards, interceptors, scopes and rate limits for `methodName` of `target`: those on the class
   * chain (base classes first), then those on the method, in the order decorators ran. Each rate
   * limit comes with where it was written (`Class` or `Class.method`): a class's limit is one
   * count for all its handlers.
   */
  pipelineOf(
    target: Constructor,
    methodName: string,
  ): { guards: unknown[]; interceptors: unknown[]; scopes: string[]; rateLimits: { rule: unknown; where: string }[] } {
    const chain: unknown[] = prototypeChain(target).reverse();
    const out = {
      guards: [] as unknown[],
      interceptors: [] as unknown[],
      scopes: [] as string[],
      rateLimits: [] as { rule: unknown; where: string }[],
    };
    const add = (args: PipelineMetadataArgs) => {
      out.guards.push(...(args.guards ?? []));
      out.interceptors.push(...(args.interceptors ?? []));
      out.scopes.push(...(args.scopes ?? []));
      const where = args.methodName === undefined ? args.target.name : `${args.target.name}.${args.methodName}`;
      for (const rule of args.rateLimits ?? []) out.rateLimits.push({ rule, where });
    };
    // Decorators apply bottom-up; reverse so the one written first runs first.
    const classLevel = this.pipeline.filter((p) => p.methodName === undefined && chain.includes(p.target));
    classLevel.sort((a, b) => chain.indexOf(a.target) - chain.indexOf(b.target));
    for (const args of groupReversed(classLevel)) add(args);
    const methodLevel = this.pipeline.filter((p) => p.methodName === methodName && chain.includes(p.target));
    for (const args of groupReversed(methodLevel)) add(args);
    return { ...out, scopes: [...new Set(out.scopes)] };
  }

  collectSkills(target: Constructor, folders: readonly unknown[]): void {
    this.skillFolders.set(target, [...(this.skillFolders.get(target) ?? []), ...folders]);
  }

  /** The skill folders `@Skills` recorded on `target` (not its base classes), as written. */
  skillsOf(target: Constructor): readonly unknown[] {
    return this.skillFolders.get(target) ?? [];
  }

  collectRequestScoped(target: Constructor): void {
    this.requestScoped.add(target);
  }

  findServer(target: Constructor): ServerMetadataArgs | undefined {
    return this.servers.get(target);
  }

  /** Handler methods of one kind declared on `target` itself (not inherited). */
  handlersOf<K extends HandlerKind>(target: Constructor, kind: K): HandlerMetadataArgs<K>[] {
    return this.handlers.filter((h): h is HandlerMetadataArgs<K> => h.target === target && h.kind === kind);
  }

  /** The `@Complete` source of `target.propertyName` (or of an ancestor's). */
  completionOf(target: Constructor, propertyName: string): CompletionMetadataArgs | undefined {
    for (const current of prototypeChain(target)) {
      const found = this.completions.get(current)?.get(propertyName);
      if (found) return found;
    }
    return undefined;
  }

  /** Field options of `target` and of its ancestors, nearest first. */
  fieldOf(target: Constructor, propertyName: string): FieldMetadataArgs | undefined {
    for (const current of prototypeChain(target)) {
      const found = this.fields.get(current)?.get(propertyName);
      if (found) return found;
    }
    return undefined;
  }

  /** Every property named by `@Field` on `target` or its ancestors. */
  fieldNamesOf(target: Constructor): string[] {
    const names = new Set<string>();
    for (const current of prototypeChain(target)) {
      for (const name of this.fields.get(current)?.keys() ?? []) names.add(name);
    }
    return [...names];
  }

  requestScopedClasses(): Constructor[] {
    return [...this.requestScoped];
  }
}

const STORAGE_KEY = Symbol.for('armature.metadata-storage');

/**
 * The process-wide storage. Kept on `globalThis` under a registered symbol so that two copies of
 * the package (a bundler's duplicate, a linked workspace) still share one storage.
 */
export function getMetadataStorage(): MetadataStorage {
  const holder = globalThis as { [STORAGE_KEY]?: MetadataStorage };
  holder[STORAGE_KEY] ??= new MetadataStorage();
  return holder[STORAGE_KEY];
}

/** Reverses decorator records per target, keeping the targets' order (decorators run bottom-up). */
function groupReversed(records: PipelineMetadataArgs[]): PipelineMetadataArgs[] {
  const out: PipelineMetadataArgs[] = [];
  let group: PipelineMetadataArgs[] = [];
  for (const record of records) {
    if (group.length > 0 && group[0]?.target !== record.target) {
      out.push(...group.reverse());
      group = [];
    }
    group.push(record);
  }
  out.push(...group.reverse());
  return out;
}
