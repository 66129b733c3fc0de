import { randomBytes } from 'node:crypto';
import { ProtocolError } from '@modelcontextprotocol/server';
import type { CallPlan } from '../builder/definitions.js';
import { ToolError } from '../context/errors.js';
import type { ErrorFilter, ExecutionContext, Interceptor } from '../context/execution-context.js';
import { after, isThenable, type MaybePromise } from '../context/maybe-promise.js';
import { callMessages, messageOf } from '../messages/call-messages.js';
import type { ValidationIssue } from '../messages/validation-issue.js';
import type { RequestTracing } from '../observability/request-tracing.js';
import type { ValidationOutcome } from '../validation/dto-validator.js';
import { prepareArguments } from '../validation/prepare-arguments.js';
import { isAllowed, provide } from './access.js';
import type { CallRequest, RuntimeStats, ToolErrorReporter } from './call-request.js';
import { InputRequiredSignal, RoundTripChannel } from './client-requests.js';
import type { RateLimiting } from './rate-limiting.js';
import { type TaskAdoption, TaskHandOver } from './task-hand-over.js';

/** What differs between handler kinds: how they answer. Everything else is the executor's. */
export interface CallKind<R, S = unknown> {
  /** How the kind names a handler in messages (`tool "x"`, `prompt "x"`). */
  label(plan: CallPlan): string;
  /** What `onError` is told failed: the tool name, or `Class.method` for the others. */
  reportAs(plan: CallPlan): string;
  /** The answer to a caller who may not use the handler: exactly that of one that does not exist. */
  denied(plan: CallPlan, subject: S, request: CallRequest): Promise<never>;
  /** The answer to invalid arguments (a tool error result, or a -32602 error). */
  invalidArguments(plan: CallPlan, issues: readonly ValidationIssue[]): R;
  /** The method's return value as the kind's result; `subject` is what the call was about (a tool, a URI). */
  convert(subject: S, value: unknown): R | Promise<R>;
  /** What the caller reads when `convert` threw (the value cannot be sent); default: the error's message, masked unless `exposeErrors`. */
  unconvertible?(plan: CallPlan, error: unknown): string;
  /** A failure as the kind's answer: a tool error result, or a JSON-RPC error (thrown). */
  fail(message: string, details?: Record<string, unknown>): R;
  /** Tools, prompts and resources: the handler asked the client questions it has no answer to yet (2026-07-28). */
  inputRequired?(channel: RoundTripChannel): Promise<R>;
}

/** The settings every call runs under. */
export interface ExecutorSettings {
  /** Calls running longer are stopped (their signal aborted) and answered with an error. 0 = no limit. */
  readonly timeoutMs: number;
  /** Send callers the message of unexpected errors; else they are masked (ToolError and McpError messages are always kept). */
  readonly exposeErrors: boolean;
  readonly errorFilter?: ErrorFilter;
  readonly reportError: ToolErrorReporter;
  readonly stats: RuntimeStats;
  /** A span around each call (and, with `detail: 'steps'`, its guards and validation), when the app is traced. */
  readonly telemetry?: RequestTracing;
  /** Counts calls against their plans' rate limits; without it none is counted (a task's background run). */
  readonly rateLimiting?: RateLimiting;
}

/** The environment variable `armature dev` sets to `1` in the server it runs: `exposeErrors` defaults to true then. */
export const EXPOSE_ERRORS_ENV = 'ARMATURE_EXPOSE_ERRORS';

/** A short id naming one unexpected failure in both the caller's masked message and the server's log. */
export function newErrorId(): string {
  return randomBytes(4).toString('hex');
}

/** Thrown (internally) when a call outlives `timeoutMs`. */
class CallTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`did not finish within ${timeoutMs} ms`);
    this.name = 'CallTimeoutError';
  }
}

/**
 * Runs one handler the same way whatever its kind: guards, arguments, the server instance from the
 * request's one DI scope, interceptors, timeout, conversion, error mapping. The request disposes
 * the scope when it ends. `McpError` (any ProtocolError) always becomes a JSON-RPC error (thrown,
 * or a rejection once a step was asynchronous). Synchronous until a step is asynchronous: a call
 * whose guards, arguments, instance, method and conversion all answer at once makes no promise.
 */
export function executeCall<R, S>(
  settings: ExecutorSettings,
  plan: CallPlan,
  kind: CallKind<R, S>,
  subject: S,
  request: CallRequest,
  args: unknown,
): MaybePromise<R> {
  const telemetry = settings.telemetry;
  // An untraced request (no tracer provider registered, telemetry off, or sampled out): no span, no closure.
  if (!request.traced || !telemetry) return runCall(settings, plan, kind, subject, request, args, undefined);
  const steps = telemetry.steps ? telemetry : undefined;
  return telemetry.handler(plan, () => runCall(settings, plan, kind, subject, request, args, steps));
}

/** What one call runs on, from its guards to its answer. */
interface Call<R, S> {
  readonly settings: ExecutorSettings;
  readonly plan: CallPlan;
  readonly kind: CallKind<R, S>;
  readonly subject: S;
  readonly request: CallRequest;
}

function runCall<R, S>(
  settings: ExecutorSettings,
  plan: CallPlan,
  kind: CallKind<R, S>,
  subject: S,
  request: CallRequest,
  args: unknown,
  /** Spans the guards and the validation (`detail: 'steps'`). */
  telemetry: RequestTracing | undefined,
): MaybePromise<R> {
  const call: Call<R, S> = { settings, plan, kind, subject, request };
  if (plan.guarded || request.filtered) {
    const allowed = telemetry ? telemetry.guards(plan.name, () => isAllowed(plan, 'call', request)) : isAllowed(plan, 'call', request);
    return after(allowed, (yes) => (yes ? limited(call, args, telemetry) : kind.denied(plan, subject, request)));
  }
  return limited(call, args, telemetry);
}

/** After the guards (a hidden handler is not revealed by its limit), before anything costly: the plan's rate limits. */
function limited<R, S>(call: Call<R, S>, args: unknown, telemetry: RequestTracing | undefined): MaybePromise<R> {
  const { settings, plan, kind } = call;
  if (plan.rateLimits.length === 0 || !settings.rateLimiting) return validated(call, args, telemetry);
  const rateLimiting = settings.rateLimiting;
  return rateLimiting.check(plan, kind.label(plan), call.request).then((refusal) => {
    if (!refusal) return validated(call, args, telemetry);
    const error = rateLimiting.errorOf(refusal, plan.kind === 'tool');
    if (!error) return kind.fail(refusal.message);
    throw error;
  });
}

/** The arguments checked (a compiled DTO answers synchronously), then the method called with them. */
function validated<R, S>(call: Call<R, S>, args: unknown, telemetry: RequestTracing | undefined): MaybePromise<R> {
  const { plan } = call;
  const prepared = telemetry
    ? telemetry.validation(plan.name, () => prepareArguments(plan.input, args))
    : prepareArguments(plan.input, args);
  // No closure for the usual synchronous outcome.
  if (isThenable(prepared)) return Promise.resolve(prepared).then((input) => checkedInput(call, args, input));
  return checkedInput(call, args, prepared);
}

/** The method called with the checked arguments, or the kind's answer to invalid ones. */
function checkedInput<R, S>(call: Call<R, S>, args: unknown, input: ValidationOutcome): MaybePromise<R> {
  return input.ok ? invoked(call, args, input.value) : call.kind.invalidArguments(call.plan, input.issues);
}

/** The server instance from the request's scope, then its method; whatever fails is the kind's failure. */
function invoked<R, S>(call: Call<R, S>, args: unknown, input: unknown): MaybePromise<R> {
  const { settings, plan, kind, request } = call;
  const ctx = request.ctx;
  const channel = ctx.roundTrip;
  // The signed state of a multi-round-trip call is only valid for this caller, handler and arguments.
  if (channel && kind.inputRequired) channel.open(ctx.principal, ctx.source.sessionId, `${plan.kind}:${plan.name}`, args);
  settings.stats.calls++;
  request.label = plan.name;
  try {
    const resolved = plan.needsInstance ? request.scopeOf().get(plan.serverClass) : undefined;
    // No closure for the usual synchronous instance and answer: made only once a step is pending.
    const answer = isThenable(resolved)
      ? Promise.resolve(resolved).then((instance) => called(call, input, instance))
      : called(call, input, resolved);
    if (!isThenable(answer)) return answer;
    return Promise.resolve(answer).then(undefined, (thrown: unknown) => failed(settings, plan, kind, request, input, thrown));
  } catch (thrown) {
    return failed(settings, plan, kind, request, input, thrown);
  }
}

/** The method's value as the kind's answer: the timeout runs only for a pending value, a task hand-over waits for the handler's choice. */
function called<R, S>(call: Call<R, S>, input: unknown, instance: unknown): MaybePromise<R> {
  const { settings, plan, kind, subject, request } = call;
  const ctx = request.ctx;
  const value =
    plan.interceptors.length === 0
      ? plan.invoke(instance, input, ctx)
      : intercepted(plan, executionOf(plan, request, input), request, async (args) => plan.invoke(instance, args, ctx));
  const start = ctx.taskStart;
  if (start instanceof TaskHandOver) return handedOver(call, input, value, start);
  // A method that returned a plain value has already finished: only a pending one needs the timer.
  if (!isThenable(value)) return answered(settings, plan, kind, subject, request, value);
  return withTimeout(Promise.resolve(value), settings.timeoutMs, (reason) => ctx.abort(reason)).then((later) =>
    answered(settings, plan, kind, subject, request, later),
  );
}

/** A handler that may call `ctx.continueAsTask()`: answered with its value, or with the task it became. */
async function handedOver<R, S>(call: Call<R, S>, input: unknown, value: unknown, start: TaskHandOver): Promise<R> {
  const { settings, plan, kind, subject, request } = call;
  const abort = (reason: unknown) => request.ctx.abort(reason);
  const outcome = await withTimeout(untilHandOver(Promise.resolve(value), start), settings.timeoutMs, abort);
  if ('adoption' in outcome) {
    // The call is answered with the task; the rest of the handler, under the task's ttl, settles it.
    const { adoption } = outcome;
    const rest = withTimeout(Promise.resolve(value), adoption.timeoutMs, abort).then(
      (later) => answered(settings, plan, kind, subject, request, later),
      (thrown: unknown) => failed(settings, plan, kind, request, input, thrown),
    );
    adoption.finish(rest, request.handOver());
    return adoption.answer as R;
  }
  return answered(settings, plan, kind, subject, request, outcome.value);
}

/** The method's value as the kind's answer (a promise only when converting it takes one). */
function answered<R, S>(
  settings: ExecutorSettings,
  plan: CallPlan,
  kind: CallKind<R, S>,
  subject: S,
  request: CallRequest,
  value: unknown,
): R | Promise<R> {
  const channel = request.ctx.roundTrip;
  // A client request left unanswered this round (2026-07-28), even if the method caught the signal.
  // Completions that caught it go on without the answer (they cannot ask on 2026-07-28).
  if (channel && channel.pending.length > 0 && kind.inputRequired) return kind.inputRequired(channel);
  return convert(settings, plan, kind, subject, value, request);
}

/** What the method threw as the kind's answer (a ProtocolError is thrown on, a JSON-RPC error). */
function failed<R, S>(
  settings: ExecutorSettings,
  plan: CallPlan,
  kind: CallKind<R, S>,
  request: CallRequest,
  args: unknown,
  thrown: unknown,
) {
  const ctx = request.ctx;
  const channel = ctx.roundTrip;
  if (thrown instanceof InputRequiredSignal && channel) return answerInputRequired(plan, kind, channel);
  const error = settings.errorFilter ? filterError(settings.errorFilter, thrown, executionOf(plan, request, args)) : thrown;
  if (error instanceof ProtocolError) throw error;
  if (error instanceof CallTimeoutError) return kind.fail(callMessages.timedOut(capitalized(kind.label(plan)), error.timeoutMs));
  if (error instanceof ToolError) return kind.fail(error.message, error.details);
  // The client cancelled: the handler stopping with an AbortError is the expected outcome, and
  // the SDK sends no response for a cancelled request anyway. Nothing to report.
  if (ctx.aborted) return kind.fail(callMessages.cancelled());
  return kind.fail(reportUnexpected(settings, error, kind, plan, request));
}

/**
 * The handler's value, or the task it became when it called `ctx.continueAsTask()`: once called,
 * the answer is the task even if the handler ended (or threw) before the task was made, so that no
 * task is left without its handler. A task refused (a limit) leaves the handler an ordinary call:
 * it got the error.
 */
async function untilHandOver(running: Promise<unknown>, start: TaskHandOver): Promise<{ value: unknown } | { adoption: TaskAdoption }> {
  const settled = running.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  const first = await Promise.race([settled, start.asked]);
  const taking = 'taking' in first ? first.taking : start.called;
  const adoption = await taking;
  if (adoption) return { adoption };
  const done = 'taking' in first ? await settled : first;
  if ('error' in done) throw done.error;
  return done;
}

/** What interceptors and the error filter see; most calls have neither, so it is made only for them. */
function executionOf(plan: CallPlan, request: CallRequest, args: unknown): ExecutionContext {
  const ctx = request.ctx;
  return {
    kind: plan.kind,
    name: plan.name,
    phase: 'call',
    serverClass: plan.serverClass,
    methodName: plan.methodName,
    context: ctx,
    principal: ctx.principal,
    args,
  };
}

/**
 * The kind's result for `value`; a value that cannot be sent is reported and answered as a failure.
 * Synchronous when the kind converts synchronously (a tool's result), a promise when it does not.
 */
function convert<R, S>(
  settings: ExecutorSettings,
  plan: CallPlan,
  kind: CallKind<R, S>,
  subject: S,
  value: unknown,
  request: CallRequest,
): R | Promise<R> {
  try {
    const result = kind.convert(subject, value);
    if (!isThenable(result)) return result;
    return Promise.resolve(result).then(undefined, (error: unknown) => unconvertible(settings, plan, kind, request, error));
  } catch (error) {
    return unconvertible(settings, plan, kind, request, error);
  }
}

/** What the caller reads when the kind could not convert the value: a ProtocolError is thrown on. */
function unconvertible<R, S>(settings: ExecutorSettings, plan: CallPlan, kind: CallKind<R, S>, request: CallRequest, error: unknown): R {
  if (error instanceof ProtocolError) throw error;
  const message = reportUnexpected(settings, error, kind, plan, request);
  return kind.fail(kind.unconvertible ? kind.unconvertible(plan, error) : message);
}

/**
 * Reports an unexpected failure under a fresh error id, and returns what the caller reads: the
 * error's message with `exposeErrors`, else a text naming the request and that id, which the
 * server's log carries beside the full error.
 */
function reportUnexpected<R, S>(
  settings: ExecutorSettings,
  error: unknown,
  kind: CallKind<R, S>,
  plan: CallPlan,
  request: CallRequest,
): string {
  const errorId = newErrorId();
  const requestId = request.ctx.requestId;
  settings.reportError(error, { tool: kind.reportAs(plan), requestId, label: kind.label(plan), errorId });
  return settings.exposeErrors ? messageOf(error) : callMessages.masked(capitalized(kind.label(plan)), requestId, errorId);
}

function answerInputRequired<R, S>(plan: CallPlan, kind: CallKind<R, S>, channel: RoundTripChannel): Promise<R> {
  // Multi-round-trip requests are answered for tools, prompts and resources; completions cannot ask.
  if (!kind.inputRequired) return Promise.resolve(kind.fail(callMessages.inputFromNonTool(plan.where)));
  return kind.inputRequired(channel);
}

function capitalized(label: string): string {
  return label.charAt(0).toUpperCase() + label.slice(1);
}

/**
 * Calls `target` inside the plan's interceptors, the first one outermost, with the arguments the
 * innermost `next(args)` handed on (the validated ones unless an interceptor replaced them).
 */
async function intercepted(
  plan: CallPlan,
  execution: ExecutionContext,
  request: CallRequest,
  target: (args: unknown) => Promise<unknown>,
): Promise<unknown> {
  const interceptors: Interceptor[] = [];
  for (const provided of plan.interceptors) interceptors.push(await provide(provided, request));
  const run = (i: number, at: ExecutionContext): Promise<unknown> => {
    const interceptor = interceptors[i];
    if (!interceptor) return target(at.args);
    return interceptor.intercept(at, (...replaced: unknown[]) => run(i + 1, replaced.length > 0 ? { ...at, args: replaced[0] } : at));
  };
  return run(0, execution);
}

/** Races `work` against `timeoutMs`, aborting the call's own signal when time is up. */
function withTimeout<T>(work: Promise<T>, timeoutMs: number, abort: (reason: unknown) => void): Promise<T> {
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) return work;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      const error = new CallTimeoutError(timeoutMs);
      abort(error);
      reject(error);
    }, timeoutMs);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/** Applies the app's error filter: whatever it returns or throws replaces the error. */
function filterError(filter: ErrorFilter | undefined, error: unknown, context: ExecutionContext): unknown {
  if (!filter || error instanceof ProtocolError || error instanceof CallTimeoutError) return error;
  try {
    const mapped = filter(error, context);
    return mapped === undefined ? error : mapped;
  } catch (thrown) {
    return thrown;
  }
}
