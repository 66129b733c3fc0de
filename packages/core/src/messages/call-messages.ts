import type { ValidationIssue } from './validation-issue.js';
import { formatIssues } from './validation-issue.js';

/** Why a task was refused, per `tasks.limits` option, and what the caller can do about it. */
const TASK_LIMIT_REACHED = {
  maxOpenTasksPerOwner: (max: number) =>
    `this caller already holds ${max} tasks (tasks.limits.maxOpenTasksPerOwner), running or finished and kept until their ttl passes. Cancel one that runs (tasks/cancel), wait for finished ones to expire, or ask for a shorter ttl (params.task.ttl, on 2025-11-25), then call again`,
  maxRunningTasksPerOwner: (max: number) =>
    `${max} tasks of this caller are already running (tasks.limits.maxRunningTasksPerOwner). Wait for one to finish (poll tasks/get) or cancel one (tasks/cancel), then call again`,
  maxRunningTasks: (max: number) =>
    `the server is already running its maximum of ${max} tasks for all callers together (tasks.limits.maxRunningTasks). Call again later`,
  maxOpenTasks: (max: number) =>
    `the server already holds its maximum of ${max} tasks for all callers together (tasks.limits.maxOpenTasks), running or finished and kept until their ttl passes. Call again later`,
};

/** Whose results a result bytes cap counts. */
const RESULT_LIMIT = {
  maxResultBytesPerOwner: "the caller's other finished tasks",
  maxResultBytes: 'the finished tasks of all callers together',
};

/** A wait in whole seconds, rounded up and at least 1: what `Retry-After` and the texts say. */
export function retryAfterSeconds(retryAfterMs: number): number {
  return Math.max(1, Math.ceil(retryAfterMs / 1000));
}

/**
 * The text a client reads when Armature itself answers a call (rather than the user's method):
 * unknown names, argument and result problems, timeouts, masked failures. Written here once;
 * the runtime, `validateDto` and `@armature/testing` use these.
 */
export const callMessages = {
  unknownTool(name: string, visible: readonly string[]): string {
    const hint =
      visible.length <= 20
        ? `Available tools: ${visible.join(', ') || 'none'}`
        : `Call tools/list to see the ${visible.length} available tools`;
    return `Unknown tool: "${name}". ${hint}`;
  },
  unknownPrompt(name: string, visible?: readonly string[]): string {
    return visible ? `Unknown prompt: "${name}". Available prompts: ${visible.join(', ') || 'none'}` : `Unknown prompt: "${name}"`;
  },
  invalidArguments(label: string, issues: readonly ValidationIssue[]): string {
    return formatIssues(`Invalid arguments for ${label}:`, issues);
  },
  invalidResult(tool: string, issues: readonly ValidationIssue[]): string {
    return formatIssues(`Invalid result from tool "${tool}" (it does not match its output schema):`, issues);
  },
  invalidAnswer(question: string, issues: readonly ValidationIssue[]): string {
    return formatIssues(`The answer to "${question}" is invalid:`, issues);
  },
  notJson(tool: string, reason: string): string {
    return `Tool "${tool}" returned a value that cannot be sent as JSON: ${reason}`;
  },
  timedOut(label: string, timeoutMs: number): string {
    return `${label} did not finish within ${timeoutMs} ms and was stopped`;
  },
  cancelled(): string {
    return 'the request was cancelled';
  },
  /** The text a caller gets for an unexpected failure (unless the app sets `exposeErrors`). */
  /** An extension method (or a skill method) called by a client that did not declare the extension. */
  extensionNotDeclared(method: string, id: string): string {
    return `${method} needs the ${id} extension: declare it in the client's capabilities (capabilities.extensions["${id}"] = {})`;
  },
  /** An extension method's handler returned something a JSON-RPC result cannot be. */
  methodResultNotObject(method: string, found: string): string {
    return `the handler of ${method} returned ${found}; a method's result must be an object (or undefined for {})`;
  },
  masked(label: string, requestId: unknown, errorId: string): string {
    const id = typeof requestId === 'string' ? JSON.stringify(requestId) : String(requestId);
    return `${label} failed unexpectedly; the error was logged on the server (request ${id}, error ${errorId})`;
  },
  inputFromNonTool(where: string): string {
    return `${where} asked the client for input (ctx.elicit/sample/roots); on 2026-07-28 only tools, prompts and resources can do that`;
  },
  questionKeyTaken(key: string): string {
    return `Two client requests of one call are both named "${key}": give each ctx.elicit/elicitUrl/sample/roots of a call its own key`;
  },
  completionNotStrings(argument: string): string {
    return `Completion for "${argument}" did not return an array of strings`;
  },
  missingClientCapability(feature: string): string {
    return `This tool needs ${feature}, which the client did not declare in its capabilities`;
  },
  wrongAnswerKind(what: string, kind: string): string {
    return `The client answered the ${what} with a ${kind} response`;
  },
  scopeDisposed(token: string): string {
    return `This request's DI scope is already disposed; cannot resolve ${token}`;
  },
  uriTooLong(length: number, limit: number): string {
    return `Invalid params: the URI is ${length} characters long, over the limit of ${limit}`;
  },
  tooManySubscriptions(limit: number): string {
    return `This session already holds ${limit} resource subscriptions (the limit); unsubscribe from one before subscribing to another`;
  },
  /**
   * A call over a rate limit: which limit (`limit` calls per `windowMs`, counted per `by`, written
   * at `source`) and when to retry, in whole seconds (at least 1).
   */
  rateLimited(label: string, limit: number, windowMs: number, by: readonly string[], source: string, retryAfterMs: number): string {
    const per = by.length > 0 ? ` per ${by.join(' and ')}` : '';
    return `Rate limit reached: ${label} allows ${limit} call${limit === 1 ? '' : 's'} per ${windowMs / 1000} s${per} (${source}). Retry in ${retryAfterSeconds(retryAfterMs)} s`;
  },
  rateLimitUncounted(label: string, reason: string): string {
    return `Service Unavailable: ${label} has a rate limit and its store could not count this call (${reason}); retry later`;
  },
  noArgumentsTaken(): string {
    return 'unknown property; this tool takes no arguments';
  },
  // Tasks (2025-11-25 tasks utility): the texts of tasks/get, tasks/result, tasks/list, tasks/cancel.
  taskNotFound(taskId: string): string {
    return `Task not found: ${taskId} (it never existed, its ttl has passed, or it belongs to another caller)`;
  },
  taskAlreadyTerminal(taskId: string, status: string): string {
    return `Cannot cancel task ${taskId}: it is already ${status}`;
  },
  taskRequired(tool: string): string {
    return `Tool "${tool}" runs only as a task: call it with params.task (e.g. "task": {}), then poll tasks/get and read tasks/result`;
  },
  taskForbidden(tool: string): string {
    return `Tool "${tool}" cannot run as a task: call it without params.task`;
  },
  taskInvalidCursor(): string {
    return 'Invalid params: the cursor of tasks/list is not one this server issued';
  },
  taskStarted(): string {
    return 'The task is running';
  },
  taskProgress(progress: number, total: number | undefined, message: string | undefined): string {
    const count = total === undefined ? `${progress}` : `${progress}/${total}`;
    return message === undefined ? count : `${count}: ${message}`;
  },
  taskCancelled(): string {
    return 'The task was cancelled by the client (tasks/cancel)';
  },
  taskQuestionTimedOut(timeoutMs: number): string {
    return `The client did not answer this task's question (inputRequests) within ${timeoutMs} ms (tasks.inputTimeoutMs); the task is failed. Answer with tasks/update while the task is input_required, or call the tool again`;
  },
  continueAsTaskUndeclared(): string {
    return "ctx.continueAsTask() was called by a handler that cannot become a task: declare its tool with @Tool({ task: { support: 'optional' | 'required', start: 'continueAsTask' } })";
  },
  taskCannotAsk(): string {
    return 'This task is being run again on another instance (retries), away from the 2025-11-25 session that created it: it cannot ask the client for input (ctx.elicit, ctx.sample, ctx.roots). Ask before the work a retry repeats, or over 2026-07-28, where a task asks through its inputRequests';
  },
  checkCannotAsk(method: string): string {
    return `A guard run to decide ${method} cannot ask the client anything (ctx.elicit, ctx.sample, ctx.roots): decide from the principal and _meta`;
  },
  taskCapabilityRequired(tool: string): string {
    return `Tool "${tool}" runs only as a task: declare the tasks extension in the request's client capabilities (_meta["io.modelcontextprotocol/clientCapabilities"].extensions["io.modelcontextprotocol/tasks"] = {}), then poll tasks/get`;
  },
  taskMethodNeedsExtension(method: string): string {
    return `${method} needs the tasks extension: declare it in the request's client capabilities (_meta["io.modelcontextprotocol/clientCapabilities"].extensions["io.modelcontextprotocol/tasks"] = {})`;
  },
  taskIdMissing(): string {
    return 'params.taskId must be a string: the taskId of the task, as the tools/call that created it answered';
  },
  /** A task method (`tasks/get`, ...) called without a taskId. */
  taskMethodIdMissing(method: string): string {
    return `Invalid params for ${method}: ${callMessages.taskIdMissing()}`;
  },
  /** A task refused because `limit` (a `tasks.limits` option) is reached: what was hit and what to do. */
  taskLimitReached(limit: keyof typeof TASK_LIMIT_REACHED, max: number): string {
    return `Task refused: ${TASK_LIMIT_REACHED[limit](max)}`;
  },
  /** A finished task whose result does not fit in what its owner may keep. */
  taskResultOverLimit(bytes: number, limit: keyof typeof RESULT_LIMIT, max: number, used: number): string {
    return `The task's result (${bytes} bytes as JSON) was dropped: with the ${used} bytes ${RESULT_LIMIT[limit]} keep, it goes over tasks.limits.${limit} (${max}). Let older tasks expire (a shorter ttl frees them sooner), or return a smaller result`;
  },
  taskLeaseExpired(leaseMs: number): string {
    return `The server instance running this task stopped answering for it (no lease renewal within ${leaseMs} ms); the task is failed. Call the tool again to retry`;
  },
  /** A retriable task whose every run lost its instance. */
  taskRetriesSpent(leaseMs: number, runs: number): string {
    return `The server instances running this task stopped answering for it ${runs} times (no lease renewal within ${leaseMs} ms), its retries are spent; the task is failed. Call the tool again to retry`;
  },
  /** The status of a task another instance runs again after the one running it stopped. */
  taskRunAgain(attempt: number, runs: number): string {
    return `The server instance running this task stopped; running it again on another instance (attempt ${attempt} of ${runs})`;
  },
  taskRunAgainCannotAsk(): string {
    return 'This run of the task was taken over from a server instance that stopped, so it cannot reach the client (ctx.elicit, ctx.sample, ctx.roots): only the first run of a task may ask';
  },
  /** What a task tool answers a client that does not poll tasks, with the app's fallback tools on. */
  fallbackStarted(taskId: string, tools: { status: string; result: string; cancel: string }): string {
    return `Started task ${taskId}: it runs in the background. Call the tool "${tools.status}" with {"taskId": "${taskId}"} to see how it goes, "${tools.result}" with the same arguments for its result once it is completed, or "${tools.cancel}" to stop it`;
  },
  fallbackStatus(taskId: string, status: string, statusMessage: string | undefined): string {
    return `Task ${taskId} is ${status}${statusMessage ? `: ${statusMessage}` : ''}`;
  },
  fallbackWithoutTasks(): string {
    return 'This app has no task tool (@Tool({ task })), so there is no task to ask about';
  },
  fallbackNotDone(taskId: string, status: string, statusTool: string): string {
    return `Task ${taskId} is still ${status}: it has no result yet. Call "${statusTool}" again in a while, then this tool`;
  },
  /** Why a run stops when another instance took its task over (this one missed its lease). */
  taskTakenOver(): string {
    return 'Another server instance took this task over (this one did not renew its lease in time): this run stops';
  },
};

/**
 * The message of anything thrown, including `null`, `undefined` and other non-Error values. A
 * thrown object's contents are never sent (they may hold credentials or internals): only that it
 * was one, and the fix.
 */
export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  if (typeof error === 'string') return error;
  if (error === null || error === undefined) return `the tool failed (it threw ${String(error)})`;
  if (typeof error === 'object' || typeof error === 'function') {
    return `the tool failed: it threw ${Array.isArray(error) ? 'an array' : 'an object'}, not an Error; throw an Error or a ToolError with a message`;
  }
  return `the tool failed (it threw ${String(error)})`;
}
