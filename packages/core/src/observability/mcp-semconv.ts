/**
 * The names Armature's spans and metrics use. They follow the OpenTelemetry semantic conventions
 * for MCP as published in open-telemetry/semantic-conventions-genai v0.1.0 (docs/gen-ai/mcp.md,
 * status Development; the conventions moved there from open-telemetry/semantic-conventions):
 * server span `{mcp.method.name} {target}`, client span for what the server asks its client,
 * `mcp.server.operation.duration` and `mcp.server.session.duration` in seconds with the advised
 * buckets, `error.type` the JSON-RPC code or `tool_error`. What the conventions do not cover
 * (handler, validation and task spans, in-flight, refusal and task counts) is named `armature.*`.
 * The conventions are still in development: a rename upstream is made here, in one place.
 */
export const ATTR = {
  method: 'mcp.method.name',
  session: 'mcp.session.id',
  protocolVersion: 'mcp.protocol.version',
  resourceUri: 'mcp.resource.uri',
  requestId: 'jsonrpc.request.id',
  toolName: 'gen_ai.tool.name',
  promptName: 'gen_ai.prompt.name',
  operation: 'gen_ai.operation.name',
  errorType: 'error.type',
  statusCode: 'rpc.response.status_code',
  transport: 'network.transport',
  protocolName: 'network.protocol.name',
  handler: 'armature.handler',
  handlerKind: 'armature.handler.kind',
  taskId: 'armature.task.id',
  taskStatus: 'armature.task.status',
  refusal: 'armature.refusal.reason',
  issues: 'armature.validation.issues',
  allowed: 'armature.guard.allowed',
  inputRequired: 'armature.input_required',
} as const;

/** `gen_ai.operation.name` of a tool call (the only operation the conventions name for MCP). */
export const EXECUTE_TOOL = 'execute_tool';
/** `error.type` of a tool result with `isError: true`. */
export const TOOL_ERROR = 'tool_error';
/** `error.type` of arguments refused by validation. */
export const INVALID_ARGUMENTS = 'invalid_arguments';

export const METRIC = {
  operationDuration: 'mcp.server.operation.duration',
  sessionDuration: 'mcp.server.session.duration',
  errors: 'armature.server.errors',
  activeRequests: 'armature.server.active_requests',
  activeSessions: 'armature.server.active_sessions',
  refused: 'armature.server.refused',
  runningTasks: 'armature.tasks.running',
  finishedTasks: 'armature.tasks.finished',
} as const;

/** The explicit bucket boundaries (seconds) the conventions advise for both duration histograms. */
export const DURATION_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];
