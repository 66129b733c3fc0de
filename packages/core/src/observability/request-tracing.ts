import { ProtocolError, type Server, type ServerContext } from '@modelcontextprotocol/server';
import type { Attributes, Context as OtelContext, Span, SpanOptions, Tracer, TracerProvider } from '@opentelemetry/api';
import { isThenable, type MaybePromise, promised } from '../context/maybe-promise.js';
import { messageOf } from '../messages/call-messages.js';
import { type OtelApi, otelApi, otelRegistered } from '../seams/opentelemetry.js';
import { type Instruments, SCOPE } from './instrument-specs.js';
import { ATTR, EXECUTE_TOOL, INVALID_ARGUMENTS, TOOL_ERROR } from './mcp-semconv.js';
import type { ArmatureMetricProducer } from './metric-producer.js';
import { RequestAttributeSets } from './request-attribute-sets.js';
import type { ServerEvents } from './server-events.js';
import { ServerMetrics } from './server-metrics.js';
import { metaWithContext, remoteParent } from './trace-context.js';

/** What the server span reads from a request (a `CallRequest`). */
export interface TracedRequest {
  readonly method: string;
  /** Set while the request has its span, so its handler calls need not ask the API again. */
  traced: boolean;
  readonly ctx: {
    readonly requestId: string | number;
    readonly meta: Readonly<Record<string, unknown>>;
    /** Where the request came from (a `RequestSource`): its session, HTTP side and 2026-07-28 envelope. */
    readonly source: {
      readonly sessionId: string | undefined;
      readonly http: ServerContext['http'];
      readonly envelope: Record<string, unknown> | undefined;
    };
  };
}

/** What a handler span names: the handler's kind, its name, and its `Class.method`. */
export interface TracedHandler {
  readonly kind: string;
  readonly name: string;
  readonly where: string;
}

/** How a request, handler or task ended, when it failed: `error.type` and what the caller read. */
interface Failure {
  readonly type: string;
  readonly code?: number;
  readonly message: string;
}

/** What tracing keeps of the API once an app registered something with it. */
interface Otel {
  readonly api: OtelApi;
  /** The API's no-op provider, the delegate of a proxy nobody registered a provider for. */
  readonly noopProvider: TracerProvider;
  /** Marks a context as an Armature request's, so that its client requests and tasks know which app traces them. */
  readonly key: symbol;
}

let otelOf: Otel | undefined;

/** The API and what tracing keeps of it; undefined while the app registered nothing (the API is then not loaded). */
function otel(): Otel | undefined {
  if (otelOf) return otelOf;
  const api = otelApi();
  if (!api) return undefined;
  otelOf = { api, noopProvider: new api.ProxyTracerProvider().getDelegate(), key: api.createContextKey('@armature/core request tracing') };
  return otelOf;
}

/** Armature's tracer, and the API it came from. */
interface Traced {
  readonly otel: Otel;
  readonly provider: TracerProvider;
  readonly tracer: Tracer;
}

let tracedOf: Traced | undefined;

/**
 * Armature's tracer from the registered provider, made once per provider (a provider's
 * `getTracer` builds a key and looks it up on every call); undefined while none is registered: a
 * global lookup and a comparison, no allocation. A provider registered by another copy of the API
 * is not this copy's proxy, and is a real one.
 */
function currentTracer(): Traced | undefined {
  const loaded = otel();
  // With metrics alone registered, the API is loaded but hands out no tracer: read so, not asked.
  if (!loaded || !otelRegistered('trace')) return undefined;
  const registered = loaded.api.trace.getTracerProvider();
  const provider = registered instanceof loaded.api.ProxyTracerProvider ? registered.getDelegate() : registered;
  if (provider === loaded.noopProvider) return undefined;
  if (tracedOf?.provider !== provider) tracedOf = { otel: loaded, provider, tracer: provider.getTracer(SCOPE) };
  return tracedOf;
}

/** How much of a request is traced: see `TelemetryOptions.detail`. */
export type TelemetryDetail = 'handlers' | 'steps';

/** The `telemetry` option of an app, when it is more than on or off. */
export interface TelemetryOptions {
  /**
   * `'handlers'` (the default): one SERVER span per request and one span per handler call (and per
   * task run), the spans production can leave on. `'steps'` adds a span for each step inside a
   * call: the guards, the argument validation, and each request the server sends its client
   * (elicitation, sampling, roots, a remote server's call); see docs/observability.md for what
   * each level costs.
   */
  detail?: TelemetryDetail;
  /**
   * Records the metrics into this producer, which a reader of the OpenTelemetry SDK collects
   * (`metricProducers: [producer]`), instead of through the metrics API's meter: see
   * {@link ArmatureMetricProducer}. Left out: the registered meter provider's instruments.
   */
  metrics?: ArmatureMetricProducer;
}

/** The span a handler call (or a step, or a task) runs in; a handler's is made once per plan. */
interface HandlerSpan {
  readonly name: string;
  readonly options: SpanOptions;
}

function failureOfResult(result: unknown): Failure | undefined {
  const tool = result as { isError?: unknown; content?: { type?: string; text?: string }[] } | undefined;
  if (tool?.isError !== true) return undefined;
  const text = tool.content?.find((block) => block.type === 'text')?.text;
  return { type: TOOL_ERROR, message: text ?? TOOL_ERROR };
}

function failureOfError(error: unknown): Failure {
  // The JSON-RPC code the caller got: the SDK answers any other error with -32603.
  const code = error instanceof ProtocolError ? error.code : -32603;
  return { type: String(code), code, message: messageOf(error) };
}

function endSpan(api: OtelApi, span: Span, failure: Failure | undefined): void {
  if (failure) {
    span.setAttribute(ATTR.errorType, failure.type);
    if (failure.code !== undefined) span.setAttribute(ATTR.statusCode, String(failure.code));
    span.setStatus({ code: api.SpanStatusCode.ERROR, message: failure.message });
  }
  span.end();
}

/** A recorded request span's attributes of its own: its id, session and resource. */
function recordRequest(span: Span, request: TracedRequest, params: unknown): void {
  span.setAttribute(ATTR.requestId, String(request.ctx.requestId));
  const sessionId = request.ctx.source.sessionId;
  if (sessionId) span.setAttribute(ATTR.session, sessionId);
  const uri = (params as { uri?: unknown } | undefined)?.uri;
  if (typeof uri === 'string' && request.method.startsWith('resources/')) span.setAttribute(ATTR.resourceUri, uri);
}

/**
 * The app's OpenTelemetry instrumentation, through `@opentelemetry/api` only: a SERVER span per
 * request (the active span while it runs), a span per handler call and per task run, and with
 * `detail: 'steps'` a span per guard check, validation and request the server sends its client;
 * and the metrics. The app brings the SDK and its exporter; while it registers nothing, the API is
 * not loaded, each request costs one global lookup and nothing is allocated. A request its sampler leaves out
 * gets no child span. `enabled: false` (the `telemetry: false` option) turns it all off.
 */
export class RequestTracing {
  private readonly metrics: ServerMetrics;
  private readonly attributeSets = new RequestAttributeSets();
  private readonly handlerSpans = new WeakMap<TracedHandler, HandlerSpan>();
  private lastMarked?: { readonly parent: OtelContext; readonly marked: OtelContext };
  /** Whether guards, validation and client requests get spans of their own (`detail: 'steps'`). */
  readonly steps: boolean;

  constructor(
    private readonly enabled: boolean,
    events: ServerEvents,
    options: TelemetryOptions = {},
  ) {
    this.steps = options.detail === 'steps';
    this.metrics = new ServerMetrics(enabled ? options.metrics : undefined);
    if (!enabled) return;
    this.metrics.listen(events);
    // At start-up: the seam checks the installed API once, and loads it now if something is already registered.
    otelApi();
  }

  /** The app closed (see `ServerMetrics.close`). */
  close(): void {
    this.metrics.close();
  }

  /** Whether spans are recorded now: the instrumentation is on and a tracer provider is registered. */
  get tracing(): boolean {
    return this.enabled && currentTracer() !== undefined;
  }

  /**
   * Runs `run(request, params)` (the request's whole handling: middleware, handler, notifications,
   * scope) inside the request's SERVER span, parented by the trace context in its `_meta` or HTTP
   * headers, and records its duration and outcome. Neither recorded nor measured: `run`'s own
   * value, a promise only when `run` made one.
   */
  serve<C extends TracedRequest, P, R>(
    request: C,
    server: Server | undefined,
    params: P,
    run: (request: C, params: P) => MaybePromise<R>,
  ): MaybePromise<R> {
    // Off, or nothing registered (the API is not loaded) and no producer: neither a tracer nor a meter, one global read.
    if (!this.enabled || (!this.metrics.producing && !otelApi())) return run(request, params);
    const traced = currentTracer();
    const instruments = this.metrics.current();
    if (!traced && !instruments) return run(request, params);
    const started = performance.now();
    const source = request.ctx.source;
    const set = this.attributeSets.of(request.method, source.envelope, source.http, server, params);
    if (instruments) this.metrics.started(request.method);
    let span: Span | undefined;
    let answer: MaybePromise<R>;
    try {
      if (traced) {
        const { api, key } = traced.otel;
        const parent = remoteParent(api, request.ctx.meta, source.http?.req?.headers);
        // The shared set is what a sampler may read; what is the request's own is added once it is recorded.
        const options = parent.link ? { ...set.spanOptions, links: [{ context: parent.link }] } : set.spanOptions;
        span = traced.tracer.startSpan(set.spanName, options, parent.context);
        request.traced = span.isRecording();
        if (request.traced) recordRequest(span, request, params);
        // The request runs in its span's context either way, so that what it sends carries the
        // sampling decision on; a span the sampler left out gets no children.
        answer = api.context.with(api.trace.setSpan(this.marked(parent.context, key), span), run, undefined, request, params);
      } else answer = run(request, params);
    } catch (error) {
      answer = Promise.reject(error);
    }
    // An answer given at once is measured at once, with no promise (once tracing has entered a
    // context, each promise a request makes costs the context manager's hooks) and no closure. A
    // promise gets one reaction, not an async function awaiting it.
    if (!isThenable(answer)) {
      this.ended(request.method, set.attributes, started, traced, span, instruments, failureOfResult(answer));
      return answer;
    }
    return answer.then(
      (result: R): R => {
        this.ended(request.method, set.attributes, started, traced, span, instruments, failureOfResult(result));
        return result;
      },
      (error: unknown) => {
        if (!(error instanceof ProtocolError) && span?.isRecording())
          span.recordException(error instanceof Error ? error : messageOf(error));
        this.ended(request.method, set.attributes, started, traced, span, instruments, failureOfError(error));
        throw error;
      },
    );
  }

  /** `parent` marked as one of this app's requests: the last one made is kept, since most requests share their parent (the root context). */
  private marked(parent: OtelContext, key: symbol): OtelContext {
    if (this.lastMarked?.parent !== parent) this.lastMarked = { parent, marked: parent.setValue(key, this) };
    return this.lastMarked.marked;
  }

  /** A request `serve` ran was answered: ends its span, records its duration and outcome. */
  private ended(
    method: string,
    attributes: Attributes,
    started: number,
    traced: Traced | undefined,
    span: Span | undefined,
    instruments: Instruments | undefined,
    failure: Failure | undefined,
  ): void {
    if (traced && span) endSpan(traced.otel.api, span, failure);
    if (!instruments) return;
    this.metrics.ended(method);
    const measured = failure ? failedAttributes(attributes, failure) : attributes;
    if (failure) instruments.errors.add(1, measured);
    instruments.operationDuration.record((performance.now() - started) / 1000, measured);
  }

  /**
   * Runs a handler call (guards, validation, method, conversion) in its own INTERNAL span, a
   * child of the request's: `execute_tool {name}` for tools (the GenAI execute_tool span),
   * `{kind} {name}` for the others. Call only while the request is `traced`.
   */
  handler<R>(plan: TracedHandler, run: () => MaybePromise<R>): MaybePromise<R> {
    const traced = currentTracer();
    if (!traced) return promised(run);
    return spanned(traced, this.handlerSpan(traced.otel.api, plan), run, failureOfResult);
  }

  /** The span of a handler's calls, made the first time it is traced. */
  private handlerSpan(api: OtelApi, plan: TracedHandler): HandlerSpan {
    let made = this.handlerSpans.get(plan);
    if (!made) {
      const attributes: Attributes = { [ATTR.handler]: plan.where, [ATTR.handlerKind]: plan.kind };
      if (plan.kind === 'tool') {
        attributes[ATTR.toolName] = plan.name;
        attributes[ATTR.operation] = EXECUTE_TOOL;
      }
      const name = plan.kind === 'tool' ? `${EXECUTE_TOOL} ${plan.name}` : `${plan.kind} ${plan.name}`;
      made = Object.freeze({ name, options: Object.freeze({ kind: api.SpanKind.INTERNAL, attributes: Object.freeze(attributes) }) });
      this.handlerSpans.set(plan, made);
    }
    return made;
  }

  /** Asks a handler's OAuth scopes and guards in their `guard {name}` span (`detail: 'steps'`), which says whether they allowed the call. */
  guards(name: string, run: () => MaybePromise<boolean>): MaybePromise<boolean> {
    return this.inSpan(internalSpan(`guard ${name}`), run, (allowed, span) => {
      span.setAttribute(ATTR.allowed, allowed);
      return undefined;
    });
  }

  /** Runs argument validation in its `validate {name}` span (`detail: 'steps'`); refused arguments end it as `invalid_arguments`. */
  validation<R extends { ok: boolean; issues?: readonly unknown[] }>(name: string, run: () => R | Promise<R>): MaybePromise<R> {
    return this.inSpan(internalSpan(`validate ${name}`), run, (outcome, span) => {
      if (outcome.ok) return undefined;
      span.setAttribute(ATTR.issues, outcome.issues?.length ?? 0);
      return { type: INVALID_ARGUMENTS, message: `${outcome.issues?.length ?? 0} invalid argument(s)` };
    });
  }

  /** Runs `run` in a span of its own (`made` names it), a child of the active one: see `spanned`. */
  private inSpan<R>(
    made: (api: OtelApi) => HandlerSpan,
    run: () => R | Promise<R>,
    failed: (result: R, span: Span) => Failure | undefined,
  ): MaybePromise<R> {
    const traced = currentTracer();
    if (!traced) return promised(run);
    return spanned(traced, made(traced.otel.api), run, failed);
  }

  /**
   * Starts tracking a 2025-11-25 session (a connection's SDK server): the active sessions count,
   * and `mcp.server.session.duration` by what the returned function (run when the server closes)
   * records; undefined when metrics are off.
   */
  session(server: Server): (() => void) | undefined {
    if (!this.enabled) return undefined;
    const instruments = this.metrics.current();
    if (!instruments) return undefined;
    const started = performance.now();
    instruments.activeSessions.add(1);
    return () => {
      instruments.activeSessions.add(-1);
      const version = server.getNegotiatedProtocolVersion();
      instruments.sessionDuration.record((performance.now() - started) / 1000, version ? { [ATTR.protocolVersion]: version } : {});
    };
  }

  /**
   * Runs a task's handler in the background in a `task {tool}` span, a child of the request that
   * created the task (the same trace, though it ends after that request was answered), and
   * counts running and finished tasks.
   */
  task<R extends { isError?: boolean }>(taskId: string, tool: string, request: { traced: boolean }, run: () => Promise<R>): Promise<R> {
    if (!this.enabled) return run();
    const instruments = this.metrics.current();
    // A task of a request its sampler left out is left out too.
    const recording = otel()?.api.trace.getActiveSpan()?.isRecording() ?? true;
    const tracing = currentTracer() !== undefined && recording;
    if (!tracing && !instruments) return run();
    request.traced = tracing;
    const attributes = { [ATTR.taskId]: taskId, [ATTR.toolName]: tool, [ATTR.operation]: EXECUTE_TOOL };
    const work = tracing ? () => promised(() => this.inSpan(internalSpan(`task ${tool}`, attributes), run, failureOfResult)) : run;
    instruments?.runningTasks.add(1);
    const finished = (status: string) => {
      instruments?.runningTasks.add(-1);
      instruments?.finishedTasks.add(1, { [ATTR.taskStatus]: status, [ATTR.toolName]: tool });
    };
    return work().then(
      (result) => {
        finished(result.isError ? 'failed' : 'completed');
        return result;
      },
      (error: unknown) => {
        finished('failed');
        throw error;
      },
    );
  }
}

/**
 * Runs `run` in the span `made` names, a child of the active one, ended when it settles: at once,
 * with no promise, when `run` answered at once (each promise pays the context manager's hooks);
 * what it throws is a rejection, as from an async function.
 */
function spanned<R>(
  traced: Traced,
  made: HandlerSpan,
  run: () => R | Promise<R>,
  failed: (result: R, span: Span) => Failure | undefined,
): MaybePromise<R> {
  const { api } = traced.otel;
  const parent = api.context.active();
  const span = traced.tracer.startSpan(made.name, made.options, parent);
  let answer: R | Promise<R>;
  try {
    answer = api.context.with(api.trace.setSpan(parent, span), run);
  } catch (error) {
    return Promise.reject(spanFailed(api, span, error));
  }
  if (isThenable(answer)) return spanEndedLater(api, span, answer, failed);
  endSpan(api, span, failed(answer, span));
  return answer;
}

/** Ends a step's span once its answer settles (a function of its own: an answer given at once allocates no closure for it). */
function spanEndedLater<R>(
  api: OtelApi,
  span: Span,
  answer: PromiseLike<R>,
  failed: (result: R, span: Span) => Failure | undefined,
): Promise<R> {
  return Promise.resolve(answer).then(
    (result) => {
      endSpan(api, span, failed(result, span));
      return result;
    },
    (error: unknown) => {
      throw spanFailed(api, span, error);
    },
  );
}

/** Ends `span` as failed by `error` (its exception recorded unless it is a JSON-RPC error); returns `error`. */
function spanFailed(api: OtelApi, span: Span, error: unknown): unknown {
  if (!(error instanceof ProtocolError)) span.recordException(error instanceof Error ? error : messageOf(error));
  endSpan(api, span, failureOfError(error));
  return error;
}

/** A request's attributes with how it failed, for its error count and duration (a failure is rare: a new object). */
function failedAttributes(attributes: Attributes, failure: Failure): Attributes {
  const measured: Attributes = { ...attributes, [ATTR.errorType]: failure.type };
  if (failure.code !== undefined) measured[ATTR.statusCode] = String(failure.code);
  return measured;
}

/** A step's or task's INTERNAL span, named `name`. */
function internalSpan(name: string, attributes?: Attributes): (api: OtelApi) => HandlerSpan {
  return (api) => ({ name, options: { kind: api.SpanKind.INTERNAL, attributes } });
}

/** The app tracing the active request, when it is traced; else undefined. */
function tracingOfActive(otel: Otel, active: OtelContext): RequestTracing | undefined {
  const tracing = active.getValue(otel.key) as RequestTracing | undefined;
  return tracing?.tracing ? tracing : undefined;
}

/** The tracer for a step's span (`detail: 'steps'`) under `active`: none when its span is not recorded (sampled out). */
function stepTracer(otel: Otel, active: OtelContext): Tracer | undefined {
  return tracingOfActive(otel, active)?.steps && otel.api.trace.getSpan(active)?.isRecording() ? currentTracer()?.tracer : undefined;
}

/**
 * Sends a request to the client (elicitation, sampling, roots) or to a remote server, with the
 * active span's trace context written into its `_meta` so the receiver's own spans join the
 * trace; with `detail: 'steps'`, in a CLIENT span named by its method, a child of the handler's
 * span. Outside a traced request, or with tracing off, it just sends.
 */
export async function clientRequest<R>(
  method: string,
  meta: Record<string, unknown> | undefined,
  send: (meta: Record<string, unknown> | undefined) => Promise<R>,
): Promise<R> {
  const loaded = otel();
  if (!loaded) return send(meta);
  const { api } = loaded;
  const parent = api.context.active();
  if (!tracingOfActive(loaded, parent)) return send(meta);
  const tracer = stepTracer(loaded, parent);
  if (!tracer) return send(metaWithContext(api, parent, meta));
  const span = tracer.startSpan(method, { kind: api.SpanKind.CLIENT, attributes: { [ATTR.method]: method } }, parent);
  const active: OtelContext = api.trace.setSpan(parent, span);
  let failure: Failure | undefined;
  try {
    return await api.context.with(active, send, undefined, metaWithContext(api, active, meta));
  } catch (error) {
    failure = failureOfError(error);
    throw error;
  } finally {
    endSpan(api, span, failure);
  }
}

/**
 * A question a 2026-07-28 handler asks its client (`ctx.elicit`, `ctx.sample`, `ctx.roots`); with
 * `detail: 'steps'`, in a CLIENT span named by its method: answered from the round's state
 * (`armature.input_required` false), or asked, ending the round with `input_required` (true; the
 * client answers in its retry, a request of its own).
 */
export function clientQuestion<R>(method: string, answer: () => R): R {
  const loaded = otel();
  if (!loaded) return answer();
  const { api } = loaded;
  const parent = api.context.active();
  const tracer = stepTracer(loaded, parent);
  if (!tracer) return answer();
  const span = tracer.startSpan(method, { kind: api.SpanKind.CLIENT, attributes: { [ATTR.method]: method } }, parent);
  let asked = true;
  try {
    const answered = api.context.with(api.trace.setSpan(parent, span), answer);
    asked = false;
    return answered;
  } finally {
    span.setAttribute(ATTR.inputRequired, asked);
    span.end();
  }
}

/** `meta` with the active span's trace context written in, inside a traced request; else `meta` as it is. */
export function withTraceContext(meta: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  const loaded = otel();
  if (!loaded) return meta;
  const active = loaded.api.context.active();
  return tracingOfActive(loaded, active) ? metaWithContext(loaded.api, active, meta) : meta;
}
