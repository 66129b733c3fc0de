import type { RequestId, Server } from '@modelcontextprotocol/server';
import type { SdkInternals, SdkLog } from '../seams/sdk-internals.js';
import type { Exchange } from './exchange.js';

const NO_REQUEST_STATE = () => undefined;

/**
 * `ctx.mcpReq` of a request the engine serves: what the SDK's would hold for it, with the abort
 * signal made only when someone reads it, and the SDK's log filter made only when the handler logs.
 */
export class EngineRequestContext {
  readonly requestState = NO_REQUEST_STATE;
  readonly id: RequestId;
  readonly method: string;
  readonly _meta: Record<string, unknown> | undefined;
  readonly envelope: Record<string, unknown> | undefined;
  private controller?: AbortController;
  private cancelled = false;
  private logger?: SdkLog;

  constructor(
    private readonly server: Server,
    private readonly sdk: SdkInternals,
    private readonly exchange: Exchange,
  ) {
    this.id = exchange.id;
    this.method = exchange.method;
    this._meta = exchange.meta;
    this.envelope = exchange.envelope;
  }

  get signal(): AbortSignal {
    this.controller ??= new AbortController();
    return this.controller.signal;
  }

  get aborted(): boolean {
    return this.cancelled;
  }

  abort(reason: unknown): void {
    this.cancelled = true;
    this.controller ??= new AbortController();
    this.controller.abort(reason);
  }

  notify(notification: { method: string; params?: Record<string, unknown> }) {
    return this.server.notification(notification as never, { relatedRequestId: this.exchange.related as RequestId });
  }

  send(request: { method: string; params?: Record<string, unknown> }, options?: Record<string, unknown>) {
    return this.server.request(request as never, { ...options, relatedRequestId: this.exchange.related } as never);
  }

  /** The SDK's own log, made when the handler first logs: its filter (capability, level) applies as is. */
  log(level: string, data: unknown, logger?: string) {
    this.logger ??= this.sdk.logOf(this.server, { sessionId: this.exchange.sessionId, mcpReq: this });
    return this.logger(level, data, logger);
  }

  elicitInput(params: unknown, options?: unknown) {
    return this.server.elicitInput(params as never, options as never);
  }

  requestSampling(params: unknown, options?: unknown) {
    return this.server.createMessage(params as never, options as never);
  }
}
