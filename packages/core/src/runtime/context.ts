import {
  type AuthInfo,
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  type CreateMessageRequestParams,
  type CreateMessageResult,
  type InputRequest,
  type InputRequiredResult,
  inputRequired,
  inputResponse,
  type LoggingLevel,
  MissingRequiredClientCapabilityError,
  PROTOCOL_VERSION_META_KEY,
  type RequestId,
  type RequestStateCodec,
  type Root,
  type Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { Constructor } from '../metadata/metadata-args.js';
import { validateDto } from '../validation/validate-dto.js';
import { formatIssues } from '../validation/validation-issue.js';
import { type ElicitationSchema, type ElicitOutcome, elicitationSchemaOf, InputRequiredSignal } from './client-requests.js';
import { ToolError } from './errors.js';

/** The eight syslog levels of MCP logging, lowest first. */
export type LogLevel = LoggingLevel;

/** Sends log notifications to the client, filtered by the level the client asked for. */
export interface ContextLogger {
  debug(message: string, data?: unknown): Promise<void>;
  info(message: string, data?: unknown): Promise<void>;
  notice(message: string, data?: unknown): Promise<void>;
  warning(message: string, data?: unknown): Promise<void>;
  error(message: string, data?: unknown): Promise<void>;
  critical(message: string, data?: unknown): Promise<void>;
  alert(message: string, data?: unknown): Promise<void>;
  emergency(message: string, data?: unknown): Promise<void>;
}

/**
 * What a call (tool, resource, prompt) knows about its request. The method receives it as its last
 * argument, and request-scoped services can inject it by type.
 *
 * - `log.*` sends `notifications/message` when the client's level allows it (2025-11-25:
 *   `logging/setLevel`; 2026-07-28: the request's `_meta` level, silent when absent).
 * - `progress()` sends `notifications/progress`; a no-op when the request carries no progress token.
 * - `signal` aborts when the client cancels (or the HTTP stream closes): pass it to `fetch` and friends.
 * - `meta` is the request's `_meta`; `requestId` its JSON-RPC id.
 *
 * @example
 * ```ts
 * @Tool({ description: 'Index a repository' })
 * async index(input: IndexInput, ctx: Context) {
 *   for (let i = 0; i < input.files.length; i++) {
 *     ctx.signal.throwIfAborted();
 *     await ctx.progress(i, input.files.length, `indexing ${input.files[i]}`);
 *   }
 *   await ctx.log.info('indexed', { files: input.files.length });
 * }
 * ```
 */
export abstract class Context {
  abstract readonly log: ContextLogger;
  abstract readonly signal: AbortSignal;
  abstract readonly meta: Readonly<Record<string, unknown>>;
  abstract readonly requestId: RequestId;
  /** The authenticated caller (a verified bearer token over HTTP), or undefined. */
  abstract readonly principal: AuthInfo | undefined;
  abstract progress(progress: number, total?: number, message?: string): Promise<void>;

  /**
   * Asks the user for structured input through the client (form elicitation). With a DTO class
   * the form is the DTO's schema and an accepted answer comes back validated as an instance.
   * Works on both revisions: a server-to-client request on 2025-11-25; an `input_required` result
   * and a retry on 2026-07-28, where the method runs again from the top with the answers so far
   * (keep the work before the question repeatable). On 2026-07-28 only tools can ask: a resource
   * or prompt that does gets a -32603 error saying so.
   *
   * @example
   * ```ts
   * const answer = await ctx.elicit('Which account should be charged?', AccountChoice);
   * if (answer.action !== 'accept') return 'Nothing charged.';
   * return charge(answer.content.account);
   * ```
   */
  abstract elicit<T extends object>(message: string, dto: Constructor<T>): Promise<ElicitOutcome<T>>;
  abstract elicit(message: string, requestedSchema: ElicitationSchema): Promise<ElicitOutcome<Record<string, unknown>>>;

  /** Asks the user to complete an interaction at `url` (URL-mode elicitation, e.g. an OAuth consent page). */
  abstract elicitUrl(message: string, url: string): Promise<{ action: 'accept' | 'decline' | 'cancel' }>;

  /**
   * Asks the client's model for a completion (sampling). A string becomes one user message.
   *
   * @example
   * ```ts
   * const reply = await ctx.sample('Summarise in one line: ' + text, { maxTokens: 100 });
   * ```
   */
  abstract sample(
    request: string | CreateMessageRequestParams,
    options?: { maxTokens?: number; systemPrompt?: string },
  ): Promise<CreateMessageResult>;

  /** The client's roots (the folders or files it exposes to this server). */
  abstract roots(): Promise<Root[]>;
}

const NO_META: Readonly<Record<string, unknown>> = Object.freeze({});

function logPayload(message: string, data: unknown): unknown {
  return data === undefined ? message : { message, data };
}

class SdkContextLogger implements ContextLogger {
  constructor(private readonly sdk: ServerContext) {}
  private send(level: LogLevel, message: string, data: unknown): Promise<void> {
    // A closed connection must not turn a log line into a failed tool call.
    return this.sdk.mcpReq.log(level, logPayload(message, data)).catch(() => undefined);
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
 * The authenticated caller, as a DI token: request-scoped services can take `principal: Principal`
 * in their constructor. Same shape as the SDK's `AuthInfo`.
 */
export abstract class Principal implements AuthInfo {
  abstract readonly token: string;
  abstract readonly clientId: string;
  abstract readonly scopes: string[];
  abstract readonly expiresAt?: number;
  abstract readonly resource?: URL;
  abstract readonly extra?: Record<string, unknown>;
}

/**
 * The SDK's own per-request context behind an Armature `Context`, for what Armature does not wrap
 * (e.g. `http.closeSSE()` on a resumable stream). Undefined for contexts not made by the SDK (tests).
 */
export function sdkContextOf(ctx: Context): ServerContext | undefined {
  return ctx instanceof SdkRequestContext ? ctx.raw : undefined;
}

export interface ClientRequestSupport {
  /** The SDK server of the connection (2025-11-25 capabilities). */
  server?: Server;
  /** Signs and checks the state carried across 2026-07-28 rounds. */
  codec?: RequestStateCodec<{ answers: Record<string, unknown> }>;
}

/** The Context of a request served through the SDK. */
export class SdkRequestContext extends Context {
  private logger?: ContextLogger;
  private readonly modern: boolean;
  /** 2026-07-28: answers of earlier rounds plus this round's input responses, by key. */
  private readonly answers: Record<string, unknown>;
  private nextKey = 0;
  /** Aborted by Armature itself (handler timeout); made only when needed. */
  private own?: AbortController;
  private combined?: AbortSignal;
  /** Set when a client request could not be answered in this round (survives a user catch-all). */
  pending?: InputRequiredSignal;

  constructor(
    private readonly sdk: ServerContext,
    private readonly support: ClientRequestSupport = {},
  ) {
    super();
    const envelope = sdk.mcpReq.envelope as Record<string, unknown> | undefined;
    this.modern = typeof envelope?.[PROTOCOL_VERSION_META_KEY] === 'string';
    if (this.modern) {
      const state = sdk.mcpReq.requestState<{ answers?: Record<string, unknown> }>();
      this.answers = { ...(typeof state === 'object' && state?.answers ? state.answers : {}), ...(sdk.mcpReq.inputResponses ?? {}) };
    } else {
      this.answers = {};
    }
  }
  get log(): ContextLogger {
    this.logger ??= new SdkContextLogger(this.sdk);
    return this.logger;
  }
  get signal(): AbortSignal {
    if (!this.combined) {
      this.own ??= new AbortController();
      this.combined = AbortSignal.any([this.sdk.mcpReq.signal, this.own.signal]);
    }
    return this.combined;
  }

  /** Aborts this call's signal from the server side (the handler timeout). */
  abort(reason: unknown): void {
    this.own ??= new AbortController();
    this.own.abort(reason);
    // A signal read before now already combines `own`; one read later will see it aborted.
  }

  get principal(): AuthInfo | undefined {
    return this.sdk.http?.authInfo;
  }
  get meta(): Readonly<Record<string, unknown>> {
    return (this.sdk.mcpReq._meta as Record<string, unknown> | undefined) ?? NO_META;
  }
  get requestId(): RequestId {
    return this.sdk.mcpReq.id;
  }
  /** The SDK's own context, for what Armature does not wrap (yet). */
  get raw(): ServerContext {
    return this.sdk;
  }
  private clientCapabilities(): ClientCapabilities | undefined {
    if (this.modern)
      return (this.sdk.mcpReq.envelope as Record<string, unknown> | undefined)?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities;
    return this.support.server?.getClientCapabilities();
  }

  private require(feature: string, has: boolean, required: ClientCapabilities): void {
    if (has) return;
    const message = `This tool needs ${feature}, which the client did not declare in its capabilities`;
    // 2026-07-28 defines -32021 for this; on 2025-11-25 a tool error the model can read is clearer.
    if (this.modern) throw new MissingRequiredClientCapabilityError({ requiredCapabilities: required }, message);
    throw new ToolError(message);
  }

  /** On 2026-07-28: the recorded answer of the next client request, or a signal asking for it. */
  private answerOr(request: InputRequest): string {
    const key = `armature_${this.nextKey++}`;
    if (key in this.answers) return key;
    this.pending = new InputRequiredSignal(key, request);
    throw this.pending;
  }

  /** The `input_required` result for the pending request, carrying the answers so far (signed). */
  async toInputRequiredResult(signal: InputRequiredSignal): Promise<InputRequiredResult> {
    const codec = this.support.codec;
    const requestState = codec ? await codec.mint({ answers: this.answers }, this.sdk) : undefined;
    return inputRequired({ inputRequests: { [signal.key]: signal.request }, ...(requestState ? { requestState } : {}) });
  }

  async elicit<T extends object>(message: string, dtoOrSchema: Constructor<T> | ElicitationSchema): Promise<ElicitOutcome<T>> {
    const dto = typeof dtoOrSchema === 'function' ? dtoOrSchema : undefined;
    const requestedSchema = dto ? elicitationSchemaOf(dto) : (dtoOrSchema as ElicitationSchema);
    const caps = this.clientCapabilities()?.elicitation as { form?: object; url?: object } | undefined;
    // An empty `elicitation: {}` means form support (spec 2025-11-25, backwards compatibility).
    this.require('form elicitation', caps !== undefined && (caps.form !== undefined || caps.url === undefined), {
      elicitation: { form: {} },
    });
    let action: string;
    let content: Record<string, unknown> | undefined;
    if (this.modern) {
      const key = this.answerOr(inputRequired.elicit({ mode: 'form', message, requestedSchema }));
      const view = inputResponse(this.answers, key);
      if (view.kind !== 'elicit') throw new ToolError(`The client answered the elicitation with a ${view.kind} response`);
      ({ action, content } = view);
    } else {
      // A raw request rather than elicitInput(): the SDK would check the answer against the schema
      // itself and fail with a JSON-RPC error; validating here gives the same answer on both revisions.
      ({ action, content } = (await this.sdk.mcpReq.send({
        method: 'elicitation/create',
        params: { mode: 'form', message, requestedSchema },
      })) as { action: string; content?: Record<string, unknown> });
    }
    if (action !== 'accept') return { action: action === 'decline' ? 'decline' : 'cancel' };
    if (!dto) return { action: 'accept', content: (content ?? {}) as T };
    const outcome = await validateDto(dto, content ?? {});
    if (!outcome.ok) throw new ToolError(formatIssues(`The answer to "${message}" is invalid:`, outcome.issues));
    return { action: 'accept', content: outcome.value };
  }

  async elicitUrl(message: string, url: string): Promise<{ action: 'accept' | 'decline' | 'cancel' }> {
    const caps = this.clientCapabilities()?.elicitation as { url?: object } | undefined;
    this.require('URL elicitation', caps?.url !== undefined, { elicitation: { url: {} } });
    if (this.modern) {
      const key = this.answerOr(inputRequired.elicitUrl({ message, url }));
      const view = inputResponse(this.answers, key);
      if (view.kind !== 'elicit') throw new ToolError(`The client answered the URL elicitation with a ${view.kind} response`);
      return { action: view.action };
    }
    const elicitationId = `${String(this.requestId)}-${this.nextKey++}`;
    const result = await this.sdk.mcpReq.elicitInput({ mode: 'url', message, url, elicitationId });
    return { action: result.action };
  }

  async sample(
    request: string | CreateMessageRequestParams,
    options: { maxTokens?: number; systemPrompt?: string } = {},
  ): Promise<CreateMessageResult> {
    this.require('sampling', this.clientCapabilities()?.sampling !== undefined, { sampling: {} });
    const params: CreateMessageRequestParams =
      typeof request === 'string'
        ? {
            messages: [{ role: 'user', content: { type: 'text', text: request } }],
            maxTokens: options.maxTokens ?? 1000,
            ...(options.systemPrompt ? { systemPrompt: options.systemPrompt } : {}),
          }
        : request;
    if (this.modern) {
      const key = this.answerOr(inputRequired.createMessage(params));
      const view = inputResponse(this.answers, key);
      if (view.kind !== 'sampling') throw new ToolError(`The client answered the sampling request with a ${view.kind} response`);
      return view.result as CreateMessageResult;
    }
    return (await this.sdk.mcpReq.requestSampling(params)) as CreateMessageResult;
  }

  async roots(): Promise<Root[]> {
    this.require('roots', this.clientCapabilities()?.roots !== undefined, { roots: {} });
    if (this.modern) {
      const key = this.answerOr(inputRequired.listRoots());
      const view = inputResponse(this.answers, key);
      if (view.kind !== 'roots') throw new ToolError(`The client answered the roots request with a ${view.kind} response`);
      return view.roots;
    }
    const result = await this.sdk.mcpReq.send({ method: 'roots/list' });
    return (result as { roots: Root[] }).roots;
  }

  async progress(progress: number, total?: number, message?: string): Promise<void> {
    const progressToken = this.sdk.mcpReq._meta?.progressToken;
    // No token: the client did not ask for progress. Aborted: the spec says to stop sending.
    if (progressToken === undefined || this.signal.aborted) return;
    const params: Record<string, unknown> = { progressToken, progress };
    if (total !== undefined) params.total = total;
    if (message !== undefined) params.message = message;
    await this.sdk.mcpReq.notify({ method: 'notifications/progress', params }).catch(() => undefined);
  }
}
