import type { ExecutionContext as ArmatureExecution, Guard } from '@armature/core';
import { type CanActivate, HttpException } from '@nestjs/common';
import { isObservable, lastValueFrom } from 'rxjs';
import { McpExecutionContext } from './mcp-execution-context.js';
import type { NestRequestScope } from './nest-container-adapter.js';
import { NestEnhancers } from './nest-enhancers.js';

/**
 * The one Armature guard standing for Nest's guards (`APP_GUARD`, `@UseGuards` on the class and
 * the method). Core resolves it from each call's DI scope, so request-scoped Nest guards are built
 * in the call's Nest context. A guard that denies (returns false, or throws an `HttpException` such
 * as `UnauthorizedException`) hides the handler from lists and refuses the call, exactly like an
 * Armature guard; any other exception from a guard is a bug in it and fails the request.
 */
export class NestGuardsGuard implements Guard {
  constructor(
    private readonly guards: NestEnhancers<CanActivate>,
    private readonly scope: NestRequestScope,
  ) {}

  async canActivate(execution: ArmatureExecution): Promise<boolean> {
    const entry = this.guards.of(execution.serverClass, execution.methodName);
    if (!entry) return true;
    const context = new McpExecutionContext(execution, entry.handler);
    for (const ref of entry.enhancers) {
      const guard = await NestEnhancers.instanceOf(ref, this.scope);
      try {
        const verdict = guard.canActivate(context);
        if (!(isObservable(verdict) ? await lastValueFrom(verdict) : await verdict)) return false;
      } catch (error) {
        if (error instanceof HttpException) return false;
        throw error;
      }
    }
    return true;
  }
}
