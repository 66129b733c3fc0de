import type { ExecutionContext as ArmatureExecution, Interceptor } from '@armature/core';
import type { CallHandler, ExceptionFilter, NestInterceptor, PipeTransform } from '@nestjs/common';
import { defer, lastValueFrom, switchMap } from 'rxjs';
import { McpExecutionContext } from './mcp-execution-context.js';
import { mcpCallOfExecution } from './mcp-request.js';
import { McpResponse } from './mcp-response.js';
import type { NestRequestScope } from './nest-container-adapter.js';
import { NestEnhancers } from './nest-enhancers.js';
import { filteredError } from './nest-filters.js';
import { pipedInput } from './nest-pipes.js';

/**
 * The one Armature interceptor standing for Nest's interceptors (`useGlobalInterceptors`,
 * `APP_INTERCEPTOR`, `@UseInterceptors` on the class and the method, the first outermost as in
 * Nest), its pipes inside them and its exception filters around them. Each interceptor sees the
 * MCP call's `ExecutionContext` (with the validated arguments in `request.mcp.args` and
 * `switchToRpc().getData()`) and a `CallHandler` whose `handle()` runs the rest of the chain, the
 * pipes on the input and the method; what the Observable emits last is the method's result. What
 * the chain throws goes through the filters (`filteredError`).
 */
export class NestInterceptorsInterceptor implements Interceptor {
  constructor(
    private readonly interceptors: NestEnhancers<NestInterceptor>,
    private readonly filters: NestEnhancers<ExceptionFilter>,
    private readonly pipes: NestEnhancers<PipeTransform>,
    private readonly scope: NestRequestScope,
  ) {}

  async intercept(execution: ArmatureExecution, next: (args?: unknown) => Promise<unknown>): Promise<unknown> {
    const entry = this.interceptors.of(execution.serverClass, execution.methodName);
    const filters = this.filters.of(execution.serverClass, execution.methodName);
    const pipes = this.pipes.of(execution.serverClass, execution.methodName);
    if (!entry && !filters && !pipes) return next();
    const handler = (entry ?? filters ?? pipes)?.handler as Function;
    const response = new McpResponse();
    const call = mcpCallOfExecution(execution);
    const context = new McpExecutionContext(call, this.scope.request, response, execution.serverClass, handler);
    // As on a controller: the pipes run on the input after the interceptors, right before the method.
    const method =
      pipes && pipes.enhancers.length > 0 ? async () => next(await pipedInput(pipes.enhancers, execution.args, this.scope)) : () => next();
    try {
      return entry && entry.enhancers.length > 0 ? await this.chain(entry.enhancers, context, method) : await method();
    } catch (error) {
      if (!filters || filters.enhancers.length === 0) throw error;
      throw await filteredError(error, filters, this.scope, call, context, response);
    }
  }

  private chain(
    enhancers: readonly { instance?: NestInterceptor; token?: unknown }[],
    context: McpExecutionContext,
    next: () => Promise<unknown>,
  ): Promise<unknown> {
    let handler: CallHandler = { handle: () => defer(() => next()) };
    for (const ref of [...enhancers].reverse()) {
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
