// Decorator metadata needs the Reflect polyfill before any decorated class is evaluated.
import 'reflect-metadata';

export {
  type CreateMcpAppOptions,
  createMcpApp,
  type HttpListener,
  type ListenHttpOptions,
  McpApp,
  type McpHttpHandler,
} from './app/create-mcp-app.js';
export { Registrations } from './app/registrations.js';
export { type AuthOptions, BearerAuth, PROTECTED_RESOURCE_METADATA_PATH } from './auth/bearer-auth.js';
export { JwtVerifier, type JwtVerifierOptions } from './auth/jwt-verifier.js';
export { InvalidTokenError, type TokenVerifier } from './auth/token-verifier.js';
export type { BuildOptions } from './builder/build-app-definition.js';
export { buildAppDefinition } from './builder/build-app-definition.js';
export { ArmatureBuildError, type BuildProblem } from './builder/build-error.js';
export type {
  AppDefinition,
  CompletionDefinition,
  InputDefinition,
  OutputDefinition,
  PromptDefinition,
  ResourceDefinition,
  ResourceTemplateDefinition,
  ToolDefinition,
} from './builder/definitions.js';
export { Field } from './decorators/field.decorator.js';
export { McpServer } from './decorators/mcp-server.decorator.js';
export { RequireScopes, UseGuards, UseInterceptors } from './decorators/pipeline.decorators.js';
export { Complete, Prompt } from './decorators/prompt.decorator.js';
export { RequestScoped } from './decorators/request-scoped.decorator.js';
export { Resource, ResourceTemplate } from './decorators/resource.decorator.js';
export { Tool } from './decorators/tool.decorator.js';
export type { ContainerAdapter, RequestScope } from './di/container-adapter.js';
export { TypediContainerAdapter } from './di/typedi-adapter.js';
export type {
  ArgumentLimits,
  CompletionRequestContext,
  CompletionSource,
  Constructor,
  FieldOptions,
  JsonSchema,
  McpServerOptions,
  PromptOptions,
  ResourceOptions,
  ResourceTemplateOptions,
  ToolOptions,
} from './metadata/metadata-args.js';
export { getMetadataStorage, MetadataStorage } from './metadata/metadata-storage.js';
export type { ErrorFilter, ExecutionContext, Guard, Interceptor, McpRequestInfo, Middleware, Provided } from './pipeline/pipeline-types.js';
export type { RuntimeOptions } from './runtime/app-runtime.js';
export type { ElicitationSchema, ElicitOutcome } from './runtime/client-requests.js';
export { audio, type ContentBlock, embeddedResource, image, resourceLink, text } from './runtime/content.js';
export { Context, type ContextLogger, type LogLevel, Principal, sdkContextOf } from './runtime/context.js';
export { McpError, ToolError } from './runtime/errors.js';
export type { RuntimeStats, ToolErrorReporter } from './runtime/invoke-tool.js';
export { toCallToolResult } from './runtime/to-call-tool-result.js';
export { dtoToJsonSchema } from './schema/dto-to-json-schema.js';
export type { HttpEndpointOptions } from './transports/http-endpoint.js';
export { InMemoryEventStore } from './transports/in-memory-event-store.js';
export type { StdioHandle, StdioOptions } from './transports/stdio.js';
export { DEFAULT_ARGUMENT_LIMITS } from './validation/argument-limits.js';
export type { ValidationOutcome } from './validation/dto-validator.js';
export { DEFAULT_MESSAGE_LIMITS, type MessageLimits } from './validation/json-prescan.js';
export { validateDto } from './validation/validate-dto.js';
export { formatIssues, type ValidationIssue } from './validation/validation-issue.js';
