import type { BuildProblem } from '@armature/core';

// Every text @armature/nestjs writes, in one place. Start-up problems join core's own in one
// ArmatureBuildError, so they keep its shape: where, what was found, the fix as code.

export const nestMessages = {
  heading: 'Armature cannot start the MCP server of this Nest app',
  scope: 'in the Nest providers',

  noServer: (): BuildProblem => ({
    where: 'ArmatureModule',
    message: 'no provider of the Nest app carries @McpServer, so there is nothing to serve',
    fix: "decorate a provider with @McpServer({ name: 'notes', version: '1.0.0' }) and add it to the providers of its module",
  }),

  handlersWithoutServer: (className: string, moduleName: string): BuildProblem => ({
    where: className,
    message: `is a provider of ${moduleName} with @Tool, @Resource or @Prompt methods but has no @McpServer, so they are not served`,
    fix: `add @McpServer({ name: '${className}', version: '1.0.0' }) above @Injectable() on ${className}`,
  }),

  providedTwice: (className: string, moduleNames: readonly string[]): BuildProblem => ({
    where: className,
    message: `is in the providers of ${moduleNames.join(' and ')}: Nest makes one instance per module, so its tools would be registered twice`,
    fix: `keep ${className} in the providers of ${moduleNames[0]} only, and add it to that module's exports where other modules need it`,
  }),

  scopeEnded: (token: unknown): string =>
    `The MCP call that asked for ${typeof token === 'function' ? token.name : String(token)} has ended: keep no reference to its scope`,

  notBuilt: (): string =>
    'ArmatureHost.app is built when Nest initialises its modules: read it after `await app.init()` (or `app.listen()`), not in a constructor',

  refused: (kind: 'tool' | 'prompt' | 'resource' | 'resourceTemplate', name: string): string =>
    `Unknown ${kind === 'prompt' ? 'prompt' : 'tool'}: "${name}"`,

  resourceRefused: (uri: string): string => `Resource ${uri} not found`,

  /** An extension's method refused: answered as Armature's own guards answer it, as if it did not exist. */
  methodRefused: (method: string): string => `Method not found: ${method}`,

  retryAfter: (message: string, seconds: number): string => `${message} (retry after ${seconds} s)`,

  httpStatus: (status: number): string => `The request failed with HTTP status ${status}`,

  guardFailed: (guard: string, where: string): string =>
    `Nest guard ${guard} threw while guarding ${where}; the call was refused as unknown. Fix the guard: a guard denies by returning false or throwing an HttpException`,

  tokenRefused: (): string => 'the token was refused',

  authGuardFailed: (guard: string): string =>
    `Nest guard ${guard} threw while authenticating an MCP request; the token was refused. Fix the guard: a guard denies by returning false or throwing an HttpException`,

  authTwice: (): BuildProblem => ({
    where: 'ArmatureModule.forRoot',
    message: 'http.auth and http.authenticate are both set, and a request has one authentication',
    fix: "keep http.authenticate: { guard: AuthGuard('jwt'), principal, resource, authorizationServers } (or http.auth with a TokenVerifier)",
  }),

  unsupportedAdapter: (type: string): string =>
    `@armature/nestjs mounts its HTTP endpoint on the Express and Fastify adapters; this app uses "${type}". ` +
    'Fix: create the app with @nestjs/platform-express or @nestjs/platform-fastify, or pass ArmatureModule.forRoot({ http: false }) and serve MCP with app.get(ArmatureHost).app.listenHttp()',
};
