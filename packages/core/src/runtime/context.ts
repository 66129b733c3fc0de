import type { LoggingLevel, RequestId, ServerContext } from '@modelcontextprotocol/server';

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
 * What a tool call knows about its request. The method receives it as its last argument, and
 * request-scoped services can inject it by type.
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
  abstract progress(progress: number, total?: number, message?: string): Promise<void>;
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
 * The SDK's own per-request context behind an Armature `Context`, for what Armature does not wrap
 * (e.g. `http.closeSSE()` on a resumable stream). Undefined for contexts not made by the SDK (tests).
 */
export function sdkContextOf(ctx: Context): ServerContext | undefined {
  return ctx instanceof SdkRequestContext ? ctx.raw : undefined;
}

/** The Context of a request served through the SDK. */
export class SdkRequestContext extends Context {
  private logger?: ContextLogger;
  constructor(private readonly sdk: ServerContext) {
    super();
  }
  get log(): ContextLogger {
    this.logger ??= new SdkContextLogger(this.sdk);
    return this.logger;
  }
  get signal(): AbortSignal {
    return this.sdk.mcpReq.signal;
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
  async progress(progress: number, total?: number, message?: string): Promise<void> {
    const progressToken = this.sdk.mcpReq._meta?.progressToken;
    // No token: the client did not ask for progress. Aborted: the spec says to stop sending.
    if (progressToken === undefined || this.sdk.mcpReq.signal.aborted) return;
    const params: Record<string, unknown> = { progressToken, progress };
    if (total !== undefined) params.total = total;
    if (message !== undefined) params.message = message;
    await this.sdk.mcpReq.notify({ method: 'notifications/progress', params }).catch(() => undefined);
  }
}
