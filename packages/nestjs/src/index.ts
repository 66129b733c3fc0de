export { ArmatureModule } from './armature.module.js';
export { ArmatureHost } from './armature-host.js';
export type {
  ArmatureGuardAuthOptions,
  ArmatureHttpOptions,
  ArmatureModuleAsyncOptions,
  ArmatureModuleOptions,
  NestPrincipal,
} from './armature-options.js';
export { ArmatureValidationPipe } from './armature-validation.pipe.js';
export { McpExecutionContext } from './mcp-execution-context.js';
export { isMcpRequest, type McpCall, type McpRequest, mcpCallOf } from './mcp-request.js';
export { McpResponse } from './mcp-response.js';
export { NestContainerAdapter } from './nest-container-adapter.js';
export { MCP_CONTEXT } from './tokens.js';
