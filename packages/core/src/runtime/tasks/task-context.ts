import {
  type CreateMessageRequest,
  type ElicitRequestFormParams,
  type ElicitRequestURLParams,
  type ElicitResult,
  type LoggingLevel,
  RELATED_TASK_META_KEY,
  type RequestOptions,
  type Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { ToolError } from '../../context/errors.js';
import { callMessages } from '../../messages/call-messages.js';
import type { ClientChannel, RequestStateCodecOf } from '../client-requests.js';
import { RequestContext } from '../request-context.js';
import { type RequestSource, serverContextOf } from '../request-source.js';

/** Runs a request to the client while the task shows `input_required` (spec 2025-11-25). */
export type AskClient = <T>(ask: () => Promise<T>) => Promise<T>;

/**
 * The request a task's handler runs as, in the background. The tools/call that created the task has
 * been answered, so what the handler sends goes through the connection (2025-11-25: the session's
 * standalone stream) rather than the finished request's stream, tagged with the task (related-task
 * `_meta`); its signal is the task's, aborted by `tasks/cancel` on any instance. While the handler
 * waits for the client (elicitation, sampling, roots), the task is `input_required`. Of `http`, only
 * the caller's identity is kept: the request's own stream is closed.
 *
 * Without `asking`, the task belongs to the 2026-07-28 tasks extension: its request was stateless
 * and is over, so there is no stream to send on. Its log lines and notifications go nowhere (the
 * extension does not carry them; progress reaches the task's status), and the request's envelope
 * is dropped so that the handler does not run as a multi-round-trip call.
 */
export class TaskRunSource implements RequestSource {
  readonly envelope: Record<string, unknown> | undefined;
  readonly http: ServerContext['http'];
  private readonly related: Record<string, unknown>;
  private sdk?: ServerContext;

  constructor(
    private readonly origin: RequestSource,
    private readonly server: Server | undefined,
    readonly signal: AbortSignal,
    taskId: string,
    private readonly asking: AskClient | undefined,
  ) {
    this.envelope = asking ? origin.envelope : undefined;
    this.http = origin.http?.authInfo ? { authInfo: origin.http.authInfo } : undefined;
    this.related = { [RELATED_TASK_META_KEY]: { taskId } };
  }

  get id() {
    return this.origin.id;
  }
  get method() {
    return this.origin.method;
  }
  get meta() {
    return this.origin.meta;
  }
  get inputResponses() {
    return this.origin.inputResponses;
  }
  get sessionId() {
    return this.origin.sessionId;
  }
  requestState<T>(): T | undefined {
    return this.origin.requestState<T>();
  }

  private tagged<P extends { _meta?: unknown } | undefined>(params: P) {
    return { ...params, _meta: { ...(params?._meta as object | undefined), ...this.related } };
  }

  async notify(notification: { method: string; params?: Record<string, unknown> }): Promise<void> {
    if (this.asking && this.server) await this.server.notification({ ...notification, params: this.tagged(notification.params) } as never);
  }
  async log(level: LoggingLevel, data: unknown, logger?: string): Promise<void> {
    if (this.asking && this.server)
      await this.server.sendLoggingMessage({ level, data, ...(logger ? { logger } : {}), _meta: this.related }, this.origin.sessionId);
  }
  send(message: { method: string; params?: Record<string, unknown> }, options?: RequestOptions): Promise<unknown> {
    const { asking, server } = this;
    if (!asking || !server) return this.origin.send(message, options);
    const request = server.request as (message: unknown, options?: RequestOptions) => Promise<unknown>;
    return asking(() => request.call(server, { ...message, params: this.tagged(message.params) }, options));
  }
  elicitInput(params: ElicitRequestFormParams | ElicitRequestURLParams, options?: RequestOptions): Promise<ElicitResult> {
    const { asking, server } = this;
    if (!asking || !server) return this.origin.elicitInput(params, options);
    return asking(() => server.elicitInput(this.tagged(params) as typeof params, options));
  }
  requestSampling(params: CreateMessageRequest['params'], options?: RequestOptions) {
    const { asking, server } = this;
    if (!asking || !server) return this.origin.requestSampling(params, options);
    return asking(() => server.createMessage(this.tagged(params) as typeof params, options));
  }
  sdkContext(): ServerContext {
    this.sdk ??= serverContextOf(this);
    return this.sdk;
  }
}

/** How a task run again away from its session asks (it cannot): each question ends the call with a tool error. */
const noClient: ClientChannel = {
  capabilities: () => undefined,
  missing: () => {
    throw new ToolError(callMessages.taskCannotAsk());
  },
  elicitForm: () => Promise.reject(new ToolError(callMessages.taskCannotAsk())),
  elicitUrl: () => Promise.reject(new ToolError(callMessages.taskCannotAsk())),
  sample: () => Promise.reject(new ToolError(callMessages.taskCannotAsk())),
  roots: () => Promise.reject(new ToolError(callMessages.taskCannotAsk())),
};

/**
 * A task handler's Context: the same API as any call's, with `progress()` also reported into the
 * task's status (`statusMessage`, seen by `tasks/get` and `notifications/tasks/status`), whether
 * or not the client asked for progress notifications. `questions` is how a task of the 2026-07-28
 * tasks extension asks its client (its `inputRequests`); without it, the task asks through the
 * 2025-11-25 session.
 */
export class TaskRequestContext extends RequestContext {
  constructor(
    source: RequestSource,
    server: Server | undefined,
    codec: RequestStateCodecOf | undefined,
    private readonly report: (statusMessage: string) => Promise<void>,
    private readonly reachesClient: boolean,
    private readonly run: { readonly attempt: number; readonly idempotencyKey: string },
    /** 2026-07-28 tasks: questions go through the task's inputRequests (tasks/update answers them). */
    private readonly questions?: ClientChannel,
  ) {
    super(source, server, codec);
  }

  override get attempt(): number {
    return this.run.attempt;
  }
  override get idempotencyKey(): string {
    return this.run.idempotencyKey;
  }

  override get channel(): ClientChannel {
    return this.questions ?? (this.reachesClient ? super.channel : noClient);
  }

  override async progress(progress: number, total?: number, message?: string): Promise<void> {
    if (this.aborted) return;
    await this.report(callMessages.taskProgress(progress, total, message));
    await super.progress(progress, total, message);
  }
}
