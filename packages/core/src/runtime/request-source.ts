import type {
  AuthInfo,
  CreateMessageRequest,
  CreateMessageResult,
  CreateMessageResultWithTools,
  ElicitRequestFormParams,
  ElicitRequestURLParams,
  ElicitResult,
  LoggingLevel,
  RequestId,
  RequestMeta,
  RequestMetaEnvelope,
  RequestOptions,
  ServerContext,
} from '@modelcontextprotocol/server';
import type { NotificationValve } from '../context/notification-valve.js';

type Outgoing = { method: string; params?: Record<string, unknown> };

/**
 * One incoming request as Armature's `Context` sees it, whoever took it off the wire: the SDK's
 * request handling (`sdkRequestSource`, around the SDK's own context), the request engine (from its
 * exchange), a task's background run, or a check that serves no client at all. Nothing here
 * pretends to be the SDK's context; `sdkContext()` gives one for `sdkContextOf`, made when asked.
 */
export interface RequestSource {
  readonly id: RequestId;
  readonly method: string;
  /** The request's `_meta`, if any. */
  readonly meta: Record<string, unknown> | undefined;
  /** The 2026-07-28 envelope (protocol version, client info and capabilities), if any. */
  readonly envelope: Record<string, unknown> | undefined;
  /** The client's answers to an earlier round of this call (2026-07-28 multi-round-trip). */
  readonly inputResponses: Record<string, unknown> | undefined;
  readonly sessionId: string | undefined;
  /** The request's HTTP side: the verified principal, the web `Request` and SSE controls. */
  readonly http: ServerContext['http'];
  /** Aborted when the client cancels or goes away. */
  readonly signal: AbortSignal;
  /**
   * The backpressure of the stream this request alone answers on, when its front gave one (made
   * when first read); otherwise the wire's, found through its request or server.
   */
  readonly notificationValve?: NotificationValve;
  /** The verified state of an earlier round (2026-07-28), if any. */
  requestState<T>(): T | undefined;
  notify(notification: Outgoing): Promise<void>;
  send(request: Outgoing, options?: RequestOptions): Promise<unknown>;
  log(level: LoggingLevel, data: unknown, logger?: string): Promise<void>;
  elicitInput(params: ElicitRequestFormParams | ElicitRequestURLParams, options?: RequestOptions): Promise<ElicitResult>;
  requestSampling(
    params: CreateMessageRequest['params'],
    options?: RequestOptions,
  ): Promise<CreateMessageResult | CreateMessageResultWithTools>;
  /** The SDK's view of this request, for what Armature does not wrap (`sdkContextOf`). */
  sdkContext(): ServerContext;
}

/**
 * An SDK context made from a source: the SDK's `ServerContext` members as own properties, in the
 * order an object literal would have them (so it destructures, spreads and lists the same), every
 * member delegating to the source, which it keeps in a private field for `sourceOf` (no table
 * entry per context).
 */
class SourceContext implements ServerContext {
  readonly #source: RequestSource;
  readonly sessionId: ServerContext['sessionId'];
  readonly mcpReq: ServerContext['mcpReq'];
  readonly http: ServerContext['http'];

  constructor(source: RequestSource) {
    this.#source = source;
    this.sessionId = source.sessionId;
    this.mcpReq = new SourceRequest(source);
    this.http = source.http;
  }

  /** The source of a context this class made, else undefined. */
  static sourceOf(ctx: ServerContext): RequestSource | undefined {
    return #source in ctx ? (ctx as SourceContext).#source : undefined;
  }
}

/**
 * The `mcpReq` of a `SourceContext`. Its `signal` is an own getter (read only when asked, as the
 * source makes it only then) defined from one shared descriptor: an object literal with a getter
 * is built by a slow path, about 1 µs a request, and ends in dictionary mode.
 */
class SourceRequest {
  readonly #source: RequestSource;
  readonly id: RequestId;
  readonly method: string;
  readonly _meta: RequestMeta | undefined;
  readonly envelope: Partial<RequestMetaEnvelope> | undefined;
  readonly inputResponses: Record<string, unknown> | undefined;
  readonly requestState: ServerContext['mcpReq']['requestState'];
  declare readonly signal: AbortSignal;
  declare readonly send: ServerContext['mcpReq']['send'];
  declare readonly notify: ServerContext['mcpReq']['notify'];
  declare readonly log: ServerContext['mcpReq']['log'];
  declare readonly elicitInput: ServerContext['mcpReq']['elicitInput'];
  declare readonly requestSampling: ServerContext['mcpReq']['requestSampling'];

  constructor(source: RequestSource) {
    this.#source = source;
    this.id = source.id;
    this.method = source.method;
    this._meta = source.meta as RequestMeta | undefined;
    this.envelope = source.envelope as Partial<RequestMetaEnvelope> | undefined;
    this.inputResponses = source.inputResponses;
    this.requestState = () => source.requestState();
    Object.defineProperty(this, 'signal', SIGNAL);
    // The members after it, in the literal's order.
    const after: Pick<ServerContext['mcpReq'], 'send' | 'notify' | 'log' | 'elicitInput' | 'requestSampling'> = {
      send: ((request: Outgoing, options?: RequestOptions) => source.send(request, options)) as ServerContext['mcpReq']['send'],
      notify: (notification) => source.notify(notification as Outgoing),
      log: (level, data, logger) => source.log(level, data, logger),
      elicitInput: (params, options) => source.elicitInput(params, options),
      requestSampling: (params, options) => source.requestSampling(params, options),
    };
    Object.assign(this, after);
  }

  static signalOf(request: SourceRequest): AbortSignal {
    return request.#source.signal;
  }
}

const SIGNAL: PropertyDescriptor = {
  get(this: SourceRequest) {
    return SourceRequest.signalOf(this);
  },
  enumerable: true,
  configurable: true,
};

/**
 * A complete SDK context for `source` (the SDK's public `ServerContext` type, every member
 * delegating to the source), for the SDK seams a request engine handler runs inside and for
 * `sdkContextOf`. `sourceOf` finds the source again.
 */
export function serverContextOf(source: RequestSource): ServerContext {
  return new SourceContext(source);
}

/** The source of a context the SDK hands a handler: the one it was made from, or the SDK's own context's. */
export function sourceOf(ctx: ServerContext): RequestSource {
  return SourceContext.sourceOf(ctx) ?? new SdkRequestSource(ctx);
}

/**
 * A request that reaches no client: what the guards of a `subscriptions/listen` stream's resources
 * see when the stream asks to follow them. Notifications and log lines go nowhere; a request to the
 * client fails with `cannotAsk`.
 */
export class ClientlessSource implements RequestSource {
  readonly sessionId = undefined;
  readonly envelope = undefined;
  readonly inputResponses = undefined;
  readonly http: ServerContext['http'];
  readonly signal = new AbortController().signal;
  private sdk?: ServerContext;

  constructor(
    readonly id: RequestId,
    readonly method: string,
    readonly meta: Record<string, unknown> | undefined,
    principal: AuthInfo | undefined,
    private readonly cannotAsk: string,
  ) {
    this.http = principal ? { authInfo: principal } : undefined;
  }

  requestState<T>(): T | undefined {
    return undefined;
  }
  async notify(): Promise<void> {}
  async log(): Promise<void> {}
  send(): Promise<never> {
    return Promise.reject(new Error(this.cannotAsk));
  }
  elicitInput(): Promise<never> {
    return Promise.reject(new Error(this.cannotAsk));
  }
  requestSampling(): Promise<never> {
    return Promise.reject(new Error(this.cannotAsk));
  }
  sdkContext(): ServerContext {
    this.sdk ??= serverContextOf(this);
    return this.sdk;
  }
}

/** A request the SDK's own request handling took off the wire, seen through its context. */
class SdkRequestSource implements RequestSource {
  constructor(private readonly ctx: ServerContext) {}

  get id() {
    return this.ctx.mcpReq.id;
  }
  get method() {
    return this.ctx.mcpReq.method;
  }
  get meta() {
    return this.ctx.mcpReq._meta as Record<string, unknown> | undefined;
  }
  get envelope() {
    return this.ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  }
  get inputResponses() {
    return this.ctx.mcpReq.inputResponses;
  }
  get sessionId() {
    return this.ctx.sessionId;
  }
  get http() {
    return this.ctx.http;
  }
  get signal() {
    return this.ctx.mcpReq.signal;
  }
  requestState<T>(): T | undefined {
    return this.ctx.mcpReq.requestState<T>();
  }
  notify(notification: Outgoing) {
    return this.ctx.mcpReq.notify(notification as Parameters<ServerContext['mcpReq']['notify']>[0]);
  }
  send(request: Outgoing, options?: RequestOptions): Promise<unknown> {
    return (this.ctx.mcpReq.send as (request: Outgoing, options?: RequestOptions) => Promise<unknown>)(request, options);
  }
  log(level: LoggingLevel, data: unknown, logger?: string) {
    return this.ctx.mcpReq.log(level, data, logger);
  }
  // On the request's own stream, as `send`: the SDK's own put them on the session's GET stream,
  // which a client need not open (and which, with instances sharing the session, another instance holds).
  elicitInput(params: ElicitRequestFormParams | ElicitRequestURLParams, options?: RequestOptions) {
    return this.ctx.mcpReq.elicitInput(params, { ...options, relatedRequestId: this.ctx.mcpReq.id });
  }
  requestSampling(params: CreateMessageRequest['params'], options?: RequestOptions) {
    return this.ctx.mcpReq.requestSampling(params, { ...options, relatedRequestId: this.ctx.mcpReq.id });
  }
  sdkContext(): ServerContext {
    return this.ctx;
  }
}
