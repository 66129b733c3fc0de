import { type CallToolResult, ProtocolError } from '@modelcontextprotocol/server';
import type { ToolDefinition } from '../builder/definitions.js';
import { CallTimeoutError, filterError, type HandlerPipeline, runIntercepted, withTimeout } from '../pipeline/call-pipeline.js';
import type { ErrorFilter, ExecutionContext } from '../pipeline/pipeline-types.js';
import { checkArgumentLimits } from '../validation/argument-limits.js';
import { describe, validateInput, validateOutput } from '../validation/dto-validator.js';
import { formatIssues, type ValidationIssue } from '../validation/validation-issue.js';
import { InputRequiredSignal } from './client-requests.js';
import { text } from './content.js';
import { type Context, SdkRequestContext } from './context.js';
import { ToolError } from './errors.js';
import { inScope, type ScopeOwner } from './scoped-call.js';
import { isCallToolResultShape, toCallToolResult, toPlainObject } from './to-call-tool-result.js';

/** Reports errors that became `isError` results (not `ToolError`s, which are expected). */
export type ToolErrorReporter = (error: unknown, info: { tool: string; requestId: unknown }) => void;

/** Counters the runtime keeps; `liveScopes` returns to 0 when no call is running. */
export interface RuntimeStats {
  liveScopes: number;
  calls: number;
}

export type ToolInvoker = InvokerSettings;

function errorResult(message: string, structured?: Record<string, unknown>): CallToolResult {
  const result: CallToolResult = { content: [text(message)], isError: true };
  if (structured) result.structuredContent = structured;
  return result;
}

function invalidArguments(tool: ToolDefinition, issues: readonly ValidationIssue[]): CallToolResult {
  return errorResult(formatIssues(`Invalid arguments for tool "${tool.name}":`, issues));
}

function invalidResult(tool: ToolDefinition, issues: readonly ValidationIssue[]): CallToolResult {
  return errorResult(formatIssues(`Invalid result from tool "${tool.name}" (it does not match its output schema):`, issues));
}

/** The message of anything thrown, including `null`, `undefined` and other non-Error values. */
export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  if (typeof error === 'string') return error;
  if (error === null || error === undefined) return `the tool failed (it threw ${String(error)})`;
  try {
    return `the tool failed: ${JSON.stringify(error)}`;
  } catch {
    return 'the tool failed';
  }
}

/**
 * Turns untrusted arguments into what the method takes: limits first (before any conversion),
 * then the DTO (class-transformer + class-validator) or the raw schema.
 */
export async function prepareInput(
  tool: ToolDefinition,
  args: unknown,
): Promise<{ ok: true; value: unknown } | { ok: false; result: CallToolResult }> {
  const raw = args ?? {};
  const limit = checkArgumentLimits(raw, tool.limits);
  if (limit) return { ok: false, result: invalidArguments(tool, [limit]) };
  switch (tool.input.kind) {
    case 'dto': {
      const shape = tool.input.shape(raw);
      if (!shape.ok) return { ok: false, result: invalidArguments(tool, shape.issues) };
      const outcome = await validateInput(tool.input.dto, raw);
      return outcome.ok ? outcome : { ok: false, result: invalidArguments(tool, outcome.issues) };
    }
    case 'schema': {
      const outcome = tool.input.validate(raw);
      return outcome.ok ? outcome : { ok: false, result: invalidArguments(tool, outcome.issues) };
    }
    default: {
      const unknown = Object.keys(raw as object).map((key) => ({ path: key, message: 'unknown property; this tool takes no arguments' }));
      return unknown.length > 0 ? { ok: false, result: invalidArguments(tool, unknown) } : { ok: true, value: undefined };
    }
  }
}

/** Converts the method's return value, checking it against the tool's output schema if it has one. */
export async function toToolResult(tool: ToolDefinition, value: unknown): Promise<CallToolResult> {
  if (tool.output.kind === 'none') return toCallToolResult(value);
  const asResult = isCallToolResultShape(value) ? value : undefined;
  if (asResult?.isError) return asResult;
  const structured = asResult ? asResult.structuredContent : value;
  if (structured === undefined) {
    return invalidResult(tool, [{ path: '', message: `expected an object matching the output schema, got ${describe(value)}` }]);
  }
  let plain: Record<string, unknown>;
  if (tool.output.kind === 'dto') {
    const outcome = await validateOutput(tool.output.dto, structured);
    if (!outcome.ok) return invalidResult(tool, outcome.issues);
    plain = toPlainObject(outcome.value);
  } else {
    const outcome = tool.output.validate(structured);
    if (!outcome.ok) return invalidResult(tool, outcome.issues);
    plain = outcome.value as Record<string, unknown>;
  }
  if (asResult) return { ...asResult, structuredContent: plain };
  return { content: [text(JSON.stringify(plain))], structuredContent: plain };
}

/** What a tool call needs from the app: DI, counters, error reporting and the pipeline settings. */
export interface InvokerSettings extends ScopeOwner {
  /** Calls running longer are stopped (their signal aborted) and answered with an error. 0 = no limit. */
  readonly timeoutMs: number;
  /** Mask unexpected error messages (ToolError and McpError messages are kept). */
  readonly production: boolean;
  readonly errorFilter?: ErrorFilter;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

/** The text a caller gets for an unexpected failure in production mode. */
export function maskedMessage(what: string, requestId: unknown): string {
  return `${what} failed unexpectedly; the error was logged on the server (request ${String(requestId)})`;
}

/**
 * One tool call (guards already passed): validate, open a DI scope bound to `ctx`, resolve the
 * server class, call the method inside the interceptors and the timeout, convert the result, and
 * always dispose the scope. An `McpError` (any ProtocolError) propagates to become a JSON-RPC
 * error; anything else thrown becomes an `isError` result.
 */
export async function invokeTool(
  invoker: InvokerSettings,
  tool: ToolDefinition,
  pipeline: HandlerPipeline,
  args: unknown,
  ctx: Context,
): Promise<CallToolResult> {
  const input = await prepareInput(tool, args);
  if (!input.ok) return input.result;

  invoker.stats.calls++;
  const execution: ExecutionContext = {
    kind: 'tool',
    name: tool.name,
    phase: 'call',
    serverClass: tool.serverClass,
    methodName: tool.methodName,
    context: ctx,
    principal: ctx.principal,
    args: input.value,
  };
  const abort = (reason: unknown) => (ctx instanceof SdkRequestContext ? ctx.abort(reason) : undefined);
  try {
    return await inScope(invoker, tool.serverClass, ctx, tool.name, async (instance, scope) => {
      const call = () => (tool.input.kind === 'none' ? tool.method.call(instance, ctx) : tool.method.call(instance, input.value, ctx));
      let value = pipeline.interceptors.length === 0 ? call() : runIntercepted(pipeline, execution, scope, async () => call());
      // A method that returned a plain value has already finished: only a pending one needs the
      // timeout (and its timer).
      if (isThenable(value)) value = await withTimeout(Promise.resolve(value), invoker.timeoutMs, abort);
      // A client request left unanswered this round (2026-07-28), even if the method caught the signal.
      if (ctx instanceof SdkRequestContext && ctx.pending)
        return (await ctx.toInputRequiredResult(ctx.pending)) as unknown as CallToolResult;
      try {
        return await toToolResult(tool, value);
      } catch (error) {
        invoker.reportError(error, { tool: tool.name, requestId: ctx.requestId });
        return errorResult(`Tool "${tool.name}" returned a value that cannot be sent as JSON: ${messageOf(error)}`);
      }
    });
  } catch (thrown) {
    if (thrown instanceof InputRequiredSignal && ctx instanceof SdkRequestContext) {
      return (await ctx.toInputRequiredResult(thrown)) as unknown as CallToolResult;
    }
    const error = filterError(invoker.errorFilter, thrown, execution);
    if (error instanceof CallTimeoutError) return errorResult(`Tool "${tool.name}" ${error.message} and was stopped`);
    if (error instanceof ProtocolError) throw error;
    if (error instanceof ToolError) return errorResult(error.message, error.details);
    // The client cancelled: the handler stopping with an AbortError is the expected outcome, and
    // the SDK sends no response for a cancelled request anyway. Nothing to report.
    if (ctx.signal.aborted) return errorResult('the request was cancelled');
    invoker.reportError(error, { tool: tool.name, requestId: ctx.requestId });
    return errorResult(invoker.production ? maskedMessage(`Tool "${tool.name}"`, ctx.requestId) : messageOf(error));
  }
}
