import type { ExecutionContext as ArmatureExecution, Interceptor } from '@armature/core';
import type { CallHandler, NestInterceptor } from '@nestjs/common';
import { defer, lastValueFrom, switchMap } from 'rxjs';
import { McpExecutionContext } from './mcp-execution-context.js';
import type { NestRequestScope } from './nest-container-adapter.js';
import { NestEnhancers } from './nest-enhancers.js';

/**
 * The one Armature interceptor standing for Nest's interceptors (`APP_INTERCEPTOR`,
 * `@UseInterceptors` on the class and the method), the first outermost as in Nest. Each sees the
 * MCP call's `ExecutionContext` (with the validated arguments) and a `CallHandler` whose
 * `handle()` runs the rest of the chain and the method; what the Observable emits last is the
 * method's result.
 */
export class NestInterceptorsInterceptor implements Interceptor {
  constructor(
    private readonly interceptors: NestEnhancers<NestInterceptor>,
    private readonly scope: NestRequestScope,
  ) {}

  async intercept(execution: ArmatureExecution, next: () => Promise<unknown>): Promise<unknown> {
    const entry = this.interceptors.of(execution.serverClass, execution.methodName);
    if (!entry) return next();
    const context = new McpExecutionContext(execution, entry.handler);
    let handler: CallHandler = { handle: () => defer(() => next()) };
    for (const ref of [...entry.enhancers].reverse()) {
      const inner = handler;
      handler = {
        // intercept() returns an Observable or a promise of one: the async factory settles the
        // promise, switchMap subscribes to the Observable.
        handle: () =>
          defer(async () => (await NestEnhancers.instanceOf(ref, this.scope)).intercept(context, inner)).pipe(
            switchMap((observable) => observable),
          ),
      };
    }
    return lastValueFrom(handler.handle(), { defaultValue: undefined });
  }
}
