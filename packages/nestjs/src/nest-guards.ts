import type { ExecutionContext as ArmatureExecution, Guard } from '@armature/core';
import { type CanActivate, HttpException, Logger } from '@nestjs/common';
import { isObservable, lastValueFrom } from 'rxjs';
import { McpExecutionContext } from './mcp-execution-context.js';
import { mcpCallOfExecution } from './mcp-request.js';
import { McpResponse } from './mcp-response.js';
import type { NestRequestScope } from './nest-container-adapter.js';
import { NestEnhancers } from './nest-enhancers.js';
import { nestMessages } from './nest-messages.js';

const logger = new Logger('Armature');

/**
 * The one Armature guard standing for Nest's guards (`useGlobalGuards`, `APP_GUARD`, `@UseGuards`
 * on the class and the method, in Nest's order). Core resolves it from each call's DI scope, so
 * request-scoped Nest guards are built in the call's Nest context. A guard that denies (returns
 * false, or throws, as `AuthGuard` throws `UnauthorizedException`) hides the handler from lists and
 * refuses the call exactly like an Armature guard. A guard that throws something other than an
 * `HttpException` has a bug: the call is refused the same way (its text never reaches the client)
 * and the error is logged with Nest's logger.
 */
export class NestGuardsGuard implements Guard {
  constructor(
    private readonly guards: NestEnhancers<CanActivate>,
    private readonly scope: NestRequestScope,
  ) {}

  async canActivate(execution: ArmatureExecution): Promise<boolean> {
    const entry = this.guards.of(execution.serverClass, execution.methodName);
    if (!entry) return true;
    const context = new McpExecutionContext(
      mcpCallOfExecution(execution),
      this.scope.request,
      new McpResponse(),
      execution.serverClass,
      entry.handler,
    );
    for (const ref of entry.enhancers) {
      let guard: CanActivate | undefined;
      try {
        guard = await NestEnhancers.instanceOf(ref, this.scope);
        const verdict = guard.canActivate(context);
        if (!(isObservable(verdict) ? await lastValueFrom(verdict) : await verdict)) return false;
      } catch (error) {
        if (!(error instanceof HttpException)) {
          const where = `${execution.serverClass.name}.${execution.methodName}`;
          logger.error(nestMessages.guardFailed(guard?.constructor.name ?? String(ref.token), where), (error as Error)?.stack);
        }
        return false;
      }
    }
    return true;
  }
}
