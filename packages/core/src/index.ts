// Decorator metadata needs the Reflect polyfill before any decorated class is evaluated.
import 'reflect-metadata';
import { explainUncaughtStartupErrors } from './messages/startup-error.js';

// Before any DTO module is evaluated (they import @armature/core first): a decorator crash that
// only a wrong tsconfig causes is printed with its fix instead of a stack inside class-validator.
explainUncaughtStartupErrors();

export {
  type CreateMcpAppOptions,
  createMcpApp,
  type HttpListener,
  type ListenHttpOptions,
  McpApp,
  type McpHttpHandler,
} from './app/create-mcp-app.js';
export { Registrations } from './app/registrations.js';
export { serveOnWorkers, type WorkersEntry } from './app/workers-fetch.js';
export { type AuthOptions, BearerAuth, PROTECTED_RESOURCE_METADATA_PATH } from './auth/bearer-auth.js';
export { JwtVerifier, type JwtVerifierOptions } from './auth/jwt-verifier.js';
export { InvalidTokenError, type TokenVerifier } from './auth/token-verifier.js';
export type { BuildOptions } from './builder/build-app-definition.js';
export { buildAppDefinition } from './builder/build-app-definition.js';
export type {
  AppDefinition,
  CallPlan,
  CompletionDefinition,
  InputDefinition,
  OutputDefinition,
  PromptDefinition,
  ResourceDefinition,
  ResourceTemplateDefinition,
  TaskSupport,
  ToolDefinition,
} from './builder/definitions.js';
export { type AppPart, MountedPart, type MountOptions, mount } from './builder/mounted-part.js';
export {
  type RemoteHttpTarget,
  type RemoteServerOptions,
  RemoteServerRef,
  type RemoteStdioTarget,
  remoteServer,
} from './builder/remote-server.js';
export {
  type ClientRequestOptions,
  Context,
  type ContextLogger,
  type ElicitationSchema,
  type ElicitOutcome,
  type LogLevel,
} from './context/context.js';
export { McpError, ToolError } from './context/errors.js';
export type {
  ErrorFilter,
  ExecutionContext,
  Guard,
  Interceptor,
  McpRequestInfo,
  Middleware,
  Provided,
} from './context/execution-context.js';
export {
  defineExtension,
  type Extension,
  type ExtensionContext,
  type ExtensionHost,
  type ExtensionMeta,
  type ExtensionMethod,
  type ExtensionOptions,
  type ExtensionProblemOptions,
  type ExtensionResource,
  type ExtensionResourceChange,
  type ExtensionResourceEntry,
  type ExtensionResourceTemplate,
  type ExtensionTool,
  type ExtensionToolCall,
  type ExtensionToolChange,
  type ProtocolRevision,
} from './context/extension.js';
export { Principal } from './context/principal.js';
export { AppResource } from './decorators/app-resource.decorator.js';
export { Field } from './decorators/field.decorator.js';
export { McpServer } from './decorators/mcp-server.decorator.js';
export { RateLimit, RequireScopes, UseGuards, UseInterceptors } from './decorators/pipeline.decorators.js';
export { Complete, Prompt } from './decorators/prompt.decorator.js';
export { RequestScoped } from './decorators/request-scoped.decorator.js';
export { Resource, ResourceTemplate } from './decorators/resource.decorator.js';
export { Skills } from './decorators/skills.decorator.js';
export { Tool } from './decorators/tool.decorator.js';
export type { ContainerAdapter, RequestScope } from './di/container-adapter.js';
export { TypediContainerAdapter } from './di/typedi-adapter.js';
export { SKILLS_EXTENSION, type SkillsOptions, skills } from './extensions/skills/skills-extension.js';
export { ArmatureBuildError, type BuildProblem, formatProblems } from './messages/build-error.js';
export { type ErrorCodeInfo, errorCodes } from './messages/message-catalog.js';
export { explainStartupError } from './messages/startup-error.js';
export { formatIssue, formatIssues, type ValidationIssue } from './messages/validation-issue.js';
export type {
  AppResourceOptions,
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
  TaggedOptions,
  TaskStart,
  TaskSupportOption,
  ToolOptions,
  ToolTaskOptions,
  ToolUiOptions,
} from './metadata/metadata-args.js';
export { getMetadataStorage, MetadataStorage } from './metadata/metadata-storage.js';
export type { RateLimitKey, RateLimitRule } from './metadata/rate-limit-rule.js';
export {
  ArmatureMetricProducer,
  type ArmatureMetricProducerOptions,
  type ProducedCollection,
  type ProducedMetricData,
  type Temporality,
  type TemporalitySource,
} from './observability/metric-producer.js';
export type { TelemetryDetail, TelemetryOptions } from './observability/request-tracing.js';
export type { RefusalReason, ServerEvent, ServerEventListener } from './observability/server-events.js';
export type { LoggerOption, ServerLogger, ServerLogLevel, StderrLog } from './observability/server-log.js';
export type { RuntimeOptions } from './runtime/app-runtime.js';
export type { RuntimeStats, ToolErrorReporter } from './runtime/call-request.js';
export { sdkContextOf } from './runtime/request-context.js';
export { audio, type ContentBlock, embeddedResource, image, resourceLink, text } from './runtime/results/content.js';
export { toCallToolResult } from './runtime/results/to-call-tool-result.js';
export type { FallbackToolNames } from './runtime/tasks/fallback-tools.js';
export { InMemoryTaskStore } from './runtime/tasks/in-memory-task-store.js';
export { DEFAULT_TASK_LIMITS, type TaskOptions } from './runtime/tasks/task-options.js';
export type { VisibilitySelector, VisibilityTarget } from './runtime/visibility.js';
export { dtoToJsonSchema } from './schema/dto-to-json-schema.js';
export type {
  AppState,
  BusTopic,
  CatalogEdit,
  CatalogEdits,
  InstanceLeases,
  SessionCaps,
  SessionRecord,
  SessionRecords,
  SharedEventStore,
  SharedState,
  StateBus,
  StreamClaim,
  StreamLeases,
} from './state/app-state.js';
export { MemoryRateLimitStore } from './state/memory-rate-limit-store.js';
export { memoryState } from './state/memory-state.js';
export { type RateLimitErrorShape, SEP_3304_RATE_LIMITED } from './state/rate-limit-error.js';
export { RATE_LIMITED, type RateLimitStore, type RateLimitVerdict } from './state/rate-limit-store.js';
export type { HeldJob, TaskJob, TaskQueue } from './state/task-queue.js';
export type { AdmissionLimit, KeepOutcome, ResultLimit, TaskLimitName, TaskLimits, TaskQuota, TaskShare } from './state/task-quota.js';
export type { TaskOutcome, TaskRecord, TaskStatus, TaskStore, TaskUpdate } from './state/task-store.js';
export { TaskWatchers } from './state/task-watchers.js';
export type { TrustProxy } from './transports/http/client-address.js';
export type { HttpEndpointOptions } from './transports/http/http-endpoint.js';
export type { HttpListenerOptions } from './transports/http/http-listener.js';
export { type ServerCardInfo, type ServerCardOptions, serverCardOf } from './transports/http/server-card.js';
export {
  DEFAULT_EVENT_STORE_LIMITS,
  InMemoryEventStore,
  type InMemoryEventStoreOptions,
} from './transports/sessions/in-memory-event-store.js';
export type { StdioHandle, StdioOptions } from './transports/stdio/stdio.js';
export { DEFAULT_ARGUMENT_LIMITS } from './validation/argument-limits.js';
export type { ValidationOutcome } from './validation/dto-validator.js';
export { DEFAULT_MESSAGE_LIMITS, type MessageLimits } from './validation/json-prescan.js';
export { validateDto } from './validation/validate-dto.js';
