import { type CanActivate, type ExecutionContext, Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';

const ADMIN_ONLY = 'admin-only';

/** Marks a route or a tool as admin-only. */
export const AdminOnly = () => SetMetadata(ADMIN_ONLY, true);

/**
 * The app's global guard (APP_GUARD): admin-only handlers need `x-role: admin`, on a REST request
 * and on the MCP POST alike (Nest guards see the HTTP request of an MCP call). Over MCP a refused
 * tool is also hidden from `tools/list`.
 */
@Injectable()
export class RolesGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    if (!this.reflector.getAllAndOverride<boolean>(ADMIN_ONLY, [context.getHandler(), context.getClass()])) return true;
    return context.switchToHttp().getRequest<{ headers: Record<string, string | undefined> }>().headers['x-role'] === 'admin';
  }
}
