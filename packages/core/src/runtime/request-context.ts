import {
  type AuthInfo,
  type ClientCapabilities,
  type CreateMessageRequestParams,
  type CreateMessageResult,
  PROTOCOL_VERSION_META_KEY,
  type ProgressToken,
  type RequestId,
  type Root,
  type Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import {
  type ClientRequestOptions,
  Context,
  type ContextLogger,
  type ElicitationSchema,
  type ElicitOutcome,
  type LogLevel,
} from '../context/context.js';
import { ToolError } from '../context/errors.js';
import { EXTENSION_VIEW, type ExtensionContext, type ProtocolRevision } from '../context/extension.js';
import { type NotificationValve, notificationValveOf } from '../context/notification-valve.js';
import { LEGACY_REVISION, MODERN_REVISION } from '../context/revisions.js';
import { callMessages } from '../messages/call-messages.js';
import type { Constructor } from '../metadata/metadata-args.js';
import { validateDto } from '../validation/validate-dto.js';
import { type ClientChannel, elicitationFormOf, type RequestStateCodecOf, RoundTripChannel, SessionChannel } from './client-requests.js';
import { connectionIdOf } from './connection-id.js';
import { ExtensionView } from './extensions/extension-view.js';
import type { RequestSource } from './request-source.js';
import { TaskHandOver } from './task-hand-over.js';

const NO_META: Readonly<Record<string, unknown>> = Object.freeze({});

class SourceLogger implements ContextLogger {
  constructor(
    private readonly source: RequestSource,
    private readonly valve: NotificationValve | undefined,
    /** True once the request is answered and its handler goes on as a task: its lines have no stream. */
    private readonly handedOver: () => boolean,
  ) {}
  private send(level: LogLevel, message: string, data: unknown): Promise<void> {
    return this.relay(level, data === undefined ? message : { message, data });
  }
  /** Sends `data` as the notification's data, as it is (what a proxied server logged, say). */
  relay(level: LogLevel, data: unknown, logger?: string): Promise<void> {
    if (this.handedOver()) return Promise.resolve();
    // A closed connection must not turn a log line into a failed tool call.
    const notify = () => this.source.log(level, data, logger).catch(() => undefined);
    // A client that is not reading: the line waits its turn (or is dropped past the stream's cap).
    return this.valve ? this.valve.send(notify, undefined, this.source.id) : notify();
  }
  debug(message: string, data?: unknown) {
    return this.send('debug', message, data);
  }
  info(message: string, data?: unknown) {
    return this.send('info', message, data);
  }
  notice(message: string, data?: unknown) {
    return this.send('notice', message, data);
  }
  warning(message: string, data?: unknown) {
    return this.send('warning', message, data);
  }
  error(message: string, data?: unknown) {
    return this.send('error', message, data);
  }
  critical(message: string, data?: unknown) {
    return this.send('critical', message, data);
  }
  alert(message: string, data?: unknown) {
    return this.send('alert', message, data);
  }
  emergency(message: string, data?: unknown) {
    return this.send('emergency', message, data);
  }
}

/**
 * `own`'s signal, aborted also when `request` is (with its reason), as the task hand-over's: what
 * `AbortSignal.any` answers for the two, without its weak references (on Node 20 they made reading
 * `ctx.signal` 5-8% of a gateway's CPU per forwarded call).
 */
function followed(own: AbortController, request: AbortSignal): AbortSignal {
  if (request.aborted) own.abort(request.reason);
  else if (!own.signal.aborted) request.addEventListener('abort', () => own.abort(request.reason), { once: true });
  return own.signal;
}

/**
 * The SDK's per-request context behind an Armature `Context`, for what Armature does not wrap
 * (e.g. `http.closeSSE()` on a resumable stream): the SDK's own when the SDK served the request,
 * else one made from the request engine's exchange with the same members. Undefined for contexts
 * not made by Armature (tests).
 */
export function sdkContextOf(ctx: Context): ServerContext | undefined {
  return ctx instanceof RequestContext ? ctx.source.sdkContext() : undefined;
}

/**
 * The Context of one request, made from its `RequestSource` whichever path took it off the wire.
 * Elicitation, sampling and roots go through the request's `ClientChannel`, which knows the
 * protocol revision; the Context only checks capabilities and validates answers.
 */
export class RequestContext extends Context {
  private logger?: SourceLogger;
  /** Aborted by Armature itself (handler timeout); made only when needed. */
  private own?: AbortController;
  private combined?: AbortSignal;
  private clientChannel?: ClientChannel;
  /** The keys the handler named its questions with (`{ key }`), each usable once per call. */
  private questionKeys?: Set<string>;
  /** The request's 2026-07-28 round (made only for requests of that revision), else undefined. */
  readonly roundTrip: RoundTripChannel | undefined;
  /**
   * Set by the tasks route for a tool declared `task: { start: 'continueAsTask' }`: how this call
   * may become a task, or `'as-is'` when it cannot (it is a task already, or its request cannot be
   * answered with one). Left unset, `ctx.continueAsTask()` is a programming error.
   */
  taskStart?: TaskHandOver | 'as-is';

  constructor(
    /** The request this Context serves. */
    readonly source: RequestSource,
    private readonly server: Server | undefined,
    codec: RequestStateCodecOf | undefined,
  ) {
    super();
    this.roundTrip = typeof source.envelope?.[PROTOCOL_VERSION_META_KEY] === 'string' ? new RoundTripChannel(source, codec) : undefined;
  }

  /** The revision the request speaks: 2026-07-28 when it carries the per-request envelope. */
  get revision(): ProtocolRevision {
    return this.roundTrip ? MODERN_REVISION : LEGACY_REVISION;
  }

  /** The connection the request came on (see `connectionIdOf`). */
  get connectionId(): string {
    return connectionIdOf(this.source, this.server);
  }

  /** How this request reaches its client: the 2026-07-28 round, or the 2025-11-25 session. */
  get channel(): ClientChannel {
    const adopted = this.adopted;
    if (adopted) return adopted.questions;
    this.clientChannel ??= this.roundTrip ?? new SessionChannel(this.source, this.server);
    return this.clientChannel;
  }
  get log(): ContextLogger {
    return this.sourceLogger;
  }

  private get sourceLogger(): SourceLogger {
    this.logger ??= new SourceLogger(this.source, this.notificationValve, () => this.adopted !== undefined);
    return this.logger;
  }

  /**
   * Sends a log message made elsewhere (a remote server's, relayed by the app) with its data and
   * logger name as they are, under the same client level and backpressure as `log`.
   */
  relayLog(level: LogLevel, data: unknown, logger?: string): Promise<void> {
    return this.sourceLogger.relay(level, data, logger);
  }

  /** The backpressure of the stream this request's notifications go to (its SSE response, or stdout). */
  private get notificationValve(): NotificationValve | undefined {
    this.notified = true;
    // The engine's source carries it (reading `http.req` there would build a web Request).
    return this.source.notificationValve ?? notificationValveOf(this.source.http?.req, this.server);
  }

  /** Whether this request sent (or may have sent) a notification through a valve. */
  private notified = false;

  /**
   * Resolves once this request's notifications have left its valve (written, dropped past the cap,
   * or the stream closed): its answer goes after them. Undefined when it sent none through a valve.
   */
  sent(): Promise<void> | undefined {
    // Most calls send nothing: no promise to wait on.
    if (!this.notified) return undefined;
    return this.notificationValve?.settled(this.source.id);
  }
  get signal(): AbortSignal {
    if (!this.combined) {
      this.own ??= new AbortController();
      const own = this.own;
      const start = this.taskStart;
      this.combined = start instanceof TaskHandOver ? start.signalOf(own, this.source.signal) : followed(own, this.source.signal);
    }
    return this.combined;
  }

  /** Whether the call was cancelled or stopped, without making the combined signal. */
  get aborted(): boolean {
    const adopted = this.adopted;
    return (adopted ? adopted.signal.aborted : this.source.signal.aborted) || this.own?.signal.aborted === true;
  }

  /** The task this call became (`ctx.continueAsTask()`), if it did. */
  private get adopted() {
    const start = this.taskStart;
    return start instanceof TaskHandOver ? start.adopted : undefined;
  }

  async continueAsTask(): Promise<void> {
    const start = this.taskStart;
    // A programming error (reported to onError), not something the client can fix.
    if (start === undefined) throw new Error(callMessages.continueAsTaskUndeclared());
    if (start === 'as-is') return;
    // A question left unanswered this round (caught by the handler): the round ends asking it.
    const unanswered = this.roundTrip?.pending[0];
    if (unanswered) throw unanswered;
    await start.take();
  }

  /** Aborts this call's signal from the server side (the handler timeout). */
  abort(reason: unknown): void {
    this.own ??= new AbortController();
    this.own.abort(reason);
  }

  override get clientCapabilities(): ClientCapabilities | undefined {
    return this.channel.capabilities();
  }

  /** Extension `id`'s view of this request (`defineExtension` handlers get it). */
  [EXTENSION_VIEW](id: string): ExtensionContext {
    return new ExtensionView(this, id, (method, params) => this.notify(method, params), this);
  }

  /**
   * Sends a notification of the request's own (an extension's), through its stream's backpressure
   * like log lines; a closed connection does not fail the call.
   */
  private notify(method: string, params: Record<string, unknown> | undefined): Promise<void> {
    const send = () => this.source.notify({ method, ...(params ? { params } : {}) }).catch(() => undefined);
    const valve = this.notificationValve;
    return valve ? valve.send(send, undefined, this.source.id) : send();
  }

  get principal(): AuthInfo | undefined {
    return this.source.http?.authInfo;
  }
  get meta(): Readonly<Record<string, unknown>> {
    return this.source.meta ?? NO_META;
  }
  /** An ordinary call runs once; a task's Context says otherwise. */
  get attempt(): number {
    return 1;
  }
  get idempotencyKey(): string | undefined {
    return undefined;
  }
  get requestId(): RequestId {
    return this.source.id;
  }

  private require(feature: string, has: boolean, required: Parameters<ClientChannel['missing']>[1]): void {
    if (!has) this.channel.missing(feature, required);
  }

  /** The question's key, once unique in this call (on both revisions, so code behaves alike on each). */
  private keyOf(options: ClientRequestOptions): string | undefined {
    const { key } = options;
    if (key === undefined) return undefined;
    this.questionKeys ??= new Set();
    // A programming error (reported to onError), not something the client can fix.
    if (this.questionKeys.has(key)) throw new Error(callMessages.questionKeyTaken(key));
    this.questionKeys.add(key);
    return key;
  }

  async elicit<T extends object>(
    message: string,
    dtoOrSchema: Constructor<T> | ElicitationSchema,
    options: ClientRequestOptions = {},
  ): Promise<ElicitOutcome<T>> {
    const dto = typeof dtoOrSchema === 'function' ? dtoOrSchema : undefined;
    const requestedSchema = dto ? elicitationFormOf(dto) : (dtoOrSchema as ElicitationSchema);
    const caps = this.channel.capabilities()?.elicitation as { form?: object; url?: object } | undefined;
    // An empty `elicitation: {}` means form support (spec 2025-11-25, backwards compatibility).
    this.require('form elicitation', caps !== undefined && (caps.form !== undefined || caps.url === undefined), {
      elicitation: { form: {} },
    });
    const { action, content } = await this.channel.elicitForm(message, requestedSchema, this.keyOf(options));
    if (action !== 'accept') return { action: action === 'decline' ? 'decline' : 'cancel' };
    if (!dto) return { action: 'accept', content: (content ?? {}) as T };
    const outcome = await validateDto(dto, content ?? {});
    if (!outcome.ok) throw new ToolError(callMessages.invalidAnswer(message, outcome.issues));
    return { action: 'accept', content: outcome.value };
  }

  async elicitUrl(message: string, url: string, options: ClientRequestOptions = {}): Promise<{ action: 'accept' | 'decline' | 'cancel' }> {
    const caps = this.channel.capabilities()?.elicitation as { url?: object } | undefined;
    this.require('URL elicitation', caps?.url !== undefined, { elicitation: { url: {} } });
    return this.channel.elicitUrl(message, url, this.keyOf(options));
  }

  async sample(
    request: string | CreateMessageRequestParams,
    options: { maxTokens?: number; systemPrompt?: string } & ClientRequestOptions = {},
  ): Promise<CreateMessageResult> {
    this.require('sampling', this.channel.capabilities()?.sampling !== undefined, { sampling: {} });
    const params = this.samplingParams(request, options);
    return this.channel.sample(params, this.keyOf(options));
  }

  async roots(options: ClientRequestOptions = {}): Promise<Root[]> {
    this.require('roots', this.channel.capabilities()?.roots !== undefined, { roots: {} });
    return this.channel.roots(this.keyOf(options));
  }

  progress(progress: number, total?: number, message?: string): Promise<void> {
    const adopted = this.adopted;
    // A task's progress shows in its status; the request it came from is answered.
    if (adopted) return this.aborted ? Promise.resolve() : adopted.progress(progress, total, message);
    const progressToken = this.source.meta?.progressToken as ProgressToken | undefined;
    // No token: the client did not ask for progress. Aborted: the spec says to stop sending.
    if (progressToken === undefined || this.aborted) return Promise.resolve();
    const params: Record<string, unknown> = { progressToken, progress };
    if (total !== undefined) params.total = total;
    if (message !== undefined) params.message = message;
    // Checked again when sent: a call cancelled while its progress waited sends nothing more.
    const notify = () =>
      this.aborted ? Promise.resolve() : this.source.notify({ method: 'notifications/progress', params }).catch(() => undefined);
    const valve = this.notificationValve;
    // While the client is not reading, only the latest progress per token waits to be sent (not async:
    // a flood that does not await shares the waiting entry's promise instead of making one per call).
    return valve ? valve.send(notify, { token: progressToken, requestId: this.source.id }) : notify();
  }
}
