import { InvalidTokenError, type Principal, type TokenVerifier } from '@armature/core';
import { type CanActivate, HttpException, Logger } from '@nestjs/common';
import { isObservable, lastValueFrom } from 'rxjs';
import type { NestPrincipal } from './armature-options.js';
import { httpRequestStorage } from './http-request-storage.js';
import { McpExecutionContext } from './mcp-execution-context.js';
import { McpResponse } from './mcp-response.js';
import { nestMessages } from './nest-messages.js';

const logger = new Logger('Armature');

/**
 * What `getHandler()` returns to the guard at admission, where no tool is chosen yet (and
 * `getClass()` is the guard's own class): `Reflector` lookups find nothing rather than throwing.
 */
function admission(): void {}

/**
 * Armature's `TokenVerifier` backed by a Nest guard: run on the HTTP request of the MCP POST (the
 * token is the one in its `Authorization` header), it leaves the user on `request.user`, where
 * each call's guards and request-scoped providers find it, and the principal made from it is the
 * call's `ctx.principal`.
 */
export class NestGuardVerifier implements TokenVerifier {
  constructor(
    private readonly guard: () => Promise<CanActivate>,
    private readonly principalOf: (user: never) => NestPrincipal,
  ) {}

  async verify(token: string): Promise<Principal> {
    const request = httpRequestStorage.getStore() as { user?: unknown } | undefined;
    if (!request) throw new InvalidTokenError(nestMessages.tokenRefused());
    const guard = await this.guard();
    const context = new McpExecutionContext(undefined, request, new McpResponse(), guard.constructor as never, admission);
    let verdict: boolean;
    try {
      const outcome = guard.canActivate(context);
      verdict = isObservable(outcome) ? await lastValueFrom(outcome) : await outcome;
    } catch (error) {
      if (!(error instanceof HttpException)) logger.error(nestMessages.authGuardFailed(guard.constructor.name), (error as Error)?.stack);
      throw new InvalidTokenError(nestMessages.tokenRefused());
    }
    if (!verdict || request.user === undefined) throw new InvalidTokenError(nestMessages.tokenRefused());
    return { token, ...this.principalOf(request.user as never) } as Principal;
  }
}
