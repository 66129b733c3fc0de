import type { ContainerAdapter, RequestScope } from '../di/container-adapter.js';
import type { Constructor } from '../metadata/metadata-args.js';
import type { Context } from './context.js';
import type { RuntimeStats, ToolErrorReporter } from './invoke-tool.js';

export interface ScopeOwner {
  readonly container: ContainerAdapter;
  readonly stats: RuntimeStats;
  readonly reportError: ToolErrorReporter;
}

/**
 * Runs `work` with the server instance resolved in a fresh DI scope bound to `ctx`, and disposes
 * the scope in `finally` whatever happened (a failing dispose is reported, never thrown).
 */
export async function inScope<T>(
  owner: ScopeOwner,
  serverClass: Constructor,
  ctx: Context,
  label: string,
  work: (instance: unknown, scope: RequestScope) => Promise<T>,
): Promise<T> {
  owner.stats.liveScopes++;
  let scope: ReturnType<ContainerAdapter['createScope']> | undefined;
  try {
    scope = owner.container.createScope(ctx);
    return await work(await scope.get(serverClass), scope);
  } finally {
    if (scope) {
      try {
        await scope.dispose();
      } catch (error) {
        owner.reportError(error, { tool: label, requestId: ctx.requestId });
      }
    }
    owner.stats.liveScopes--;
  }
}
