import type {
  CreateMessageRequest,
  ElicitRequestFormParams,
  ElicitRequestURLParams,
  LoggingLevel,
  RequestId,
  RequestOptions,
  Server,
  ServerContext,
} from '@modelcontextprotocol/server';
import type { NotificationValve } from '../context/notification-valve.js';
import { type RequestSource, serverContextOf } from '../runtime/request-source.js';
import type { SdkInternals, SdkLog } from '../seams/sdk-internals.js';
import type { Exchange } from './exchange.js';

type Outgoing = { method: string; params?: Record<string, unknown> };

/**
 * A request the engine serves, as the handler's Context sees it: made from the front's exchange,
 * with the abort signal made only when someone reads it, the SDK's log filter only when the handler
 * logs, and an SDK context only when `sdkContextOf` or an SDK seam asks for one.
 */
export class ExchangeSource implements RequestSource {
  readonly id: RequestId;
  readonly method: string;
  readonly meta: Record<string, unknown> | undefined;
  readonly envelope: Record<string, unknown> | undefined;
  /** The engine declines retried rounds (accept-table.ts): a request it serves carries no answers. */
  readonly inputResponses = undefined;
  private controller?: AbortController;
  private cancelled = false;
  private logger?: SdkLog;
  private sdk?: ServerContext;
  private valve?: NotificationValve;

  constructor(
    private readonly server: Server,
    private readonly internals: SdkInternals,
    private readonly exchange: Exchange,
  ) {
    this.id = exchange.id;
    this.method = exchange.method;
    this.meta = exchange.meta;
    this.envelope = exchange.envelope;
  }

  get sessionId() {
    return this.exchange.sessionId;
  }

  get http() {
    return this.exchange.http;
  }

  /** Its notifications wait while the client is not reading its stream, as on the other paths. */
  get notificationValve(): NotificationValve | undefined {
    if (this.valve === undefined && this.exchange.notifications) this.valve = this.exchange.notifications();
    return this.valve;
  }

  get signal(): AbortSignal {
    this.controller ??= new AbortController();
    return this.controller.signal;
  }

  /** Whether the client cancelled or went away, without making the signal. */
  get aborted(): boolean {
    return this.cancelled;
  }

  abort(reason: unknown): void {
    this.cancelled = true;
    this.controller ??= new AbortController();
    this.controller.abort(reason);
  }

  requestState<T>(): T | undefined {
    return undefined;
  }

  notify(notification: Outgoing) {
    return this.server.notification(notification as never, { relatedRequestId: this.exchange.related as RequestId });
  }

  send(request: Outgoing, options?: RequestOptions): Promise<unknown> {
    return this.server.request(request as never, { ...options, relatedRequestId: this.exchange.related } as never);
  }

  /** The SDK's own log, made when the handler first logs: its filter (capability, level) applies as is. */
  log(level: LoggingLevel, data: unknown, logger?: string) {
    this.logger ??= this.internals.logOf(this.server, { sessionId: this.exchange.sessionId, mcpReq: this });
    return this.logger(level, data, logger);
  }

  // On the request's own stream, as `send` (see SdkContextSource's).
  elicitInput(params: ElicitRequestFormParams | ElicitRequestURLParams, options?: RequestOptions) {
    return this.server.elicitInput(params, { ...options, relatedRequestId: this.exchange.related } as RequestOptions);
  }

  requestSampling(params: CreateMessageRequest['params'], options?: RequestOptions) {
    return this.server.createMessage(params, { ...options, relatedRequestId: this.exchange.related } as RequestOptions);
  }

  sdkContext(): ServerContext {
    this.sdk ??= serverContextOf(this);
    return this.sdk;
  }
}
