import type { AuthInfo } from '@modelcontextprotocol/server';

/**
 * The authenticated caller, as a DI token: request-scoped services can take `principal: Principal`
 * in their constructor. Same shape as the SDK's `AuthInfo`.
 */
export abstract class Principal implements AuthInfo {
  abstract readonly token: string;
  abstract readonly clientId: string;
  abstract readonly scopes: string[];
  abstract readonly expiresAt?: number;
  abstract readonly resource?: URL;
  abstract readonly extra?: Record<string, unknown>;
}
