import type { AuthInfo, Server } from '@modelcontextprotocol/server';
import type { CallPlan } from '../builder/definitions.js';
import type { ContainerAdapter, RequestScope } from '../di/container-adapter.js';
import type { RequestStateCodecOf } from './client-requests.js';
import { RequestContext } from './request-context.js';
import type { RequestSource } from './request-source.js';

/**
 * Told of each unexpected error Armature caught and answered for (not `ToolError`s, which are
 * expected): `tool` names the handler (a tool's name, else `Class.method`), `label` says what it is
 * for a log line (`tool "greet"`, `resource "ui://counter/view.html"`), and `errorId` (for a failure
 * the caller was answered for) is the id its masked message names.
 */
export type ToolErrorReporter = (error: unknown, info: { tool: string; requestId: unknown; label: string; errorId?: string }) => void;

/** Counters the runtime keeps; `liveScopes` returns to 0 when no request is running. */
export interface RuntimeStats {
  liveScopes: number;
  calls: number;
  /** Requests answered by the request engine, without the SDK's per-message request handling. */
  engine: number;
}

/** What every request of an app shares. */
export interface RequestEnvironment {
  readonly container: ContainerAdapter;
  readonly stats: RuntimeStats;
  readonly reportError: ToolErrorReporter;
  readonly codec: RequestStateCodecOf;
  /** Who sees which catalogue entries (`hiddenTags`, `showFor`, `hideFor`): a `CatalogVisibility`. */
  readonly visibility?: {
    readonly active: boolean;
    allows(plan: CallPlan, caller: { readonly sessionId?: string; readonly principal?: AuthInfo }): boolean;
  };
}

/**
 * One JSON-RPC request Armature handles: its Context (made once, seen by middleware, guards,
 * interceptors and the handler alike) and its one DI scope, opened when first needed and disposed
 * when the request ends, whatever happened.
 */
export class CallRequest {
  readonly ctx: RequestContext;
  private scope?: RequestScope;
  /** What the request ran (a tool name, a URI), for reports. */
  label?: string;
  /** Whether the request runs in its OpenTelemetry span: its handler calls then get theirs. */
  traced = false;

  constructor(
    private readonly env: RequestEnvironment,
    readonly method: string,
    source: RequestSource,
    server: Server | undefined,
    ctx?: RequestContext,
  ) {
    this.ctx = ctx ?? new RequestContext(source, server, env.codec);
  }

  /** True while visibility rules may hide an entry from someone: lists and calls must ask `hides`. */
  get filtered(): boolean {
    return this.env.visibility?.active ?? false;
  }

  /** Whether visibility rules hide the handler of `plan` from this caller. */
  hides(plan: CallPlan): boolean {
    const visibility = this.env.visibility;
    if (!visibility?.active) return false;
    return !visibility.allows(plan, { sessionId: this.ctx.source.sessionId, principal: this.ctx.principal });
  }

  /** The request's DI scope, bound to its Context. */
  scopeOf(): RequestScope {
    if (!this.scope) {
      this.scope = this.env.container.createScope(this.ctx);
      this.env.stats.liveScopes++;
    }
    return this.scope;
  }

  /**
   * The request is answered but its handler goes on as a task (`ctx.continueAsTask()`): `end()`
   * no longer disposes the scope; the returned function does, once the task settles.
   */
  handOver(): () => Promise<void> {
    this.handedOver = true;
    return async () => this.dispose();
  }
  private handedOver = false;

  /**
   * Disposes the scope, if one was opened (unless the request was handed over to a task): a
   * promise only when a disposal hook is still running, so most requests wait for nothing.
   */
  end(): Promise<void> | undefined {
    return this.handedOver ? undefined : this.dispose();
  }

  /** A failing dispose is reported, never sent to the caller. */
  private dispose(): Promise<void> | undefined {
    const scope = this.scope;
    if (!scope) return undefined;
    let disposing: void | Promise<void> | undefined;
    try {
      disposing = scope.dispose();
    } catch (error) {
      this.reportDispose(error);
    }
    if (!disposing) {
      this.env.stats.liveScopes--;
      return undefined;
    }
    return disposing
      .then(undefined, (error: unknown) => this.reportDispose(error))
      .finally(() => {
        this.env.stats.liveScopes--;
      });
  }

  private reportDispose(error: unknown): void {
    this.env.reportError(error, { tool: this.label ?? this.method, requestId: this.ctx.requestId, label: this.label ?? this.method });
  }
}
