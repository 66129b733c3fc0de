import type { McpCall } from '@armature/nestjs';
import { type CanActivate, type ExecutionContext, Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';

const ADMIN_ONLY = 'admin-only';

/** Marks a route or a tool as admin-only. */
export const AdminOnly = () => SetMetadata(ADMIN_ONLY, true);

/**
 * The app's global guard (APP_GUARD): admin-only handlers need `x-role: admin` on REST, and an
 * authenticated principal whose token says `role: admin` over MCP. Over MCP a refused tool is also
 * hidden from `tools/list`.
 */
@Injectable()
export class RolesGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    if (!this.reflector.getAllAndOverride<boolean>(ADMIN_ONLY, [context.getHandler(), context.getClass()])) return true;
    if (context.getType<string>() === 'mcp') {
      const { principal } = context.switchToHttp().getRequest<McpCall>();
      return principal?.extra?.role === 'admin';
    }
    return context.switchToHttp().getRequest<{ headers: Record<string, string | undefined> }>().headers['x-role'] === 'admin';
  }
}
