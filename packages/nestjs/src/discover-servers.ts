import { type BuildProblem, type Constructor, getMetadataStorage, type MetadataStorage } from '@armature/core';
import type { DiscoveryService } from '@nestjs/core';
import { nestMessages } from './nest-messages.js';

/** The handler decorators a provider may carry. */
export const HANDLER_KINDS = ['tool', 'resource', 'resourceTemplate', 'prompt'] as const;

/** One Nest provider that carries `@McpServer`. */
export interface DiscoveredServer {
  readonly serverClass: Constructor;
  /** The provider's token (the class, or the `provide` of a `useClass` provider). */
  readonly token: unknown;
  /** The module whose providers list it. */
  readonly moduleName: string;
  /** The singleton, or undefined when the provider is request-scoped or transient (built per call). */
  readonly instance: object | undefined;
}

interface Wrapper {
  readonly token: unknown;
  readonly metatype: unknown;
  readonly inject?: unknown;
  readonly instance: unknown;
  readonly host?: { readonly metatype?: { readonly name?: string } };
  isDependencyTreeStatic(): boolean;
  readonly isTransient: boolean;
}

function hasHandlers(target: Constructor, storage: MetadataStorage): boolean {
  return HANDLER_KINDS.some((kind) => storage.handlersOf(target, kind).length > 0);
}

/**
 * Finds the `@McpServer` providers of every module of the app. Only `@McpServer` classes are
 * served: an `@Injectable()` with `@Tool` methods and no `@McpServer` is reported (it has no server
 * name and version to announce, and serving every decorated class silently would expose tools the
 * author did not mean to expose). Also reports a server class listed in two modules.
 */
export function discoverServers(
  discovery: DiscoveryService,
  storage: MetadataStorage = getMetadataStorage(),
): { servers: DiscoveredServer[]; problems: BuildProblem[] } {
  const byClass = new Map<Constructor, DiscoveredServer[]>();
  const problems: BuildProblem[] = [];
  const unserved = new Set<Constructor>();
  for (const wrapper of discovery.getProviders() as unknown as Wrapper[]) {
    const metatype = wrapper.metatype;
    // A factory provider's metatype is its factory function, not the class it returns.
    if (typeof metatype !== 'function' || wrapper.inject) continue;
    const serverClass = metatype as Constructor;
    const moduleName = wrapper.host?.metatype?.name ?? 'its module';
    if (!storage.findServer(serverClass)) {
      if (!unserved.has(serverClass) && hasHandlers(serverClass, storage)) {
        unserved.add(serverClass);
        problems.push(nestMessages.handlersWithoutServer(serverClass.name, moduleName));
      }
      continue;
    }
    const isStatic = wrapper.isDependencyTreeStatic() && !wrapper.isTransient;
    const found: DiscoveredServer = {
      serverClass,
      token: wrapper.token,
      moduleName,
      instance: isStatic ? (wrapper.instance as object) : undefined,
    };
    byClass.set(serverClass, [...(byClass.get(serverClass) ?? []), found]);
  }
  const servers: DiscoveredServer[] = [];
  for (const [serverClass, found] of byClass) {
    if (found.length > 1) {
      problems.push(
        nestMessages.providedTwice(
          serverClass.name,
          found.map((f) => f.moduleName),
        ),
      );
    }
    servers.push(found[0] as DiscoveredServer);
  }
  return { servers, problems };
}
