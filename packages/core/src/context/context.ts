// Type-only imports: this module is what handlers, guards and request-scoped services see, and it
// must load without the SDK (the builder and the DI seam import it too).
import type {
  AuthInfo,
  ClientCapabilities,
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitRequestFormParams,
  LoggingLevel,
  RequestId,
  Root,
} from '@modelcontextprotocol/server';
import type { Constructor } from '../metadata/metadata-args.js';

/** The eight syslog levels of MCP logging, lowest first. */
export type LogLevel = LoggingLevel;

/** The client's answer to an elicitation: accepted with content, declined, or cancelled (dismissed). */
export type ElicitOutcome<T> = { action: 'accept'; content: T } | { action: 'decline' } | { action: 'cancel' };

/** The restricted schema of a form elicitation (flat object of primitive properties). */
export type ElicitationSchema = ElicitRequestFormParams['requestedSchema'];

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

/** Options of a question a handler asks the client (`ctx.elicit`, `ctx.elicitUrl`, `ctx.sample`, `ctx.roots`). */
export interface ClientRequestOptions {
  /**
   * The question's key in the `inputRequests` of a 2026-07-28 `input_required` result, under which
   * the client answers (default `armature_<n>`, numbered in asking order). Unique within one call;
   * unused on 2025-11-25, where the question is a request of its own.
   */
  key?: string;
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
  /**
   * Which run of this call this is: 1, or more when a task (`@Tool({ task: { retries } })`) is run
   * again on another instance after the one running it stopped (tasks run at least once, not
   * exactly once; see docs/tasks.md).
   */
  abstract readonly attempt: number;
  /**
   * In a task: a key that stays the same across the task's attempts (derived from the task id, not
   * the id itself), to pass to the services the handler changes so that a run again does not do the
   * work twice. Undefined in an ordinary call.
   */
  abstract readonly idempotencyKey: string | undefined;
  abstract progress(progress: number, total?: number, message?: string): Promise<void>;

  /**
   * What the client declared it can answer (`elicitation`, `sampling`, `roots`, ...): the session's
   * capabilities on 2025-11-25, the request's `_meta` on 2026-07-28. Undefined when unknown. Ask
   * only what is declared: `ctx.elicit`, `ctx.sample` and `ctx.roots` fail for a capability the
   * client lacks.
   */
  get clientCapabilities(): ClientCapabilities | undefined {
    return undefined;
  }

  /**
   * Asks the user for structured input through the client (form elicitation). With a DTO class
   * the form is the DTO's schema and an accepted answer comes back validated as an instance.
   * Works on both revisions: a server-to-client request on 2025-11-25; an `input_required` result
   * and a retry on 2026-07-28, where the method runs again from the top with the answers so far
   * (keep the work before the question repeatable). Questions asked together (`Promise.all`) go
   * to the client in one round. Tools, prompts and resources can ask; a completion that does gets
   * a -32603 error saying so on 2026-07-28.
   *
   * @example
   * ```ts
   * const answer = await ctx.elicit('Which account should be charged?', AccountChoice);
   * if (answer.action !== 'accept') return 'Nothing charged.';
   * return charge(answer.content.account);
   * ```
   */
  abstract elicit<T extends object>(message: string, dto: Constructor<T>, options?: ClientRequestOptions): Promise<ElicitOutcome<T>>;
  abstract elicit(
    message: string,
    requestedSchema: ElicitationSchema,
    options?: ClientRequestOptions,
  ): Promise<ElicitOutcome<Record<string, unknown>>>;

  /** Asks the user to complete an interaction at `url` (URL-mode elicitation, e.g. an OAuth consent page). */
  abstract elicitUrl(message: string, url: string, options?: ClientRequestOptions): Promise<{ action: 'accept' | 'decline' | 'cancel' }>;

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
    options?: { maxTokens?: number; systemPrompt?: string } & ClientRequestOptions,
  ): Promise<CreateMessageResult>;

  /** The client's roots (the folders or files it exposes to this server). */
  abstract roots(options?: ClientRequestOptions): Promise<Root[]>;

  /**
   * Turns the rest of this tool call into a task (`@Tool({ task: { support, start: 'continueAsTask' } })`):
   * the `tools/call` is answered with the task, and the handler goes on in the background with the
   * same DI scope, its signal aborted by `tasks/cancel`, its progress shown in the task's status,
   * and its later questions (`ctx.elicit`, ...) asked through the task's `inputRequests`. What the
   * handler returns becomes the task's result. The questions asked before, in the call's
   * `input_required` rounds, keep their answers: the handler runs on from where it called this.
   *
   * Only a 2026-07-28 request that declares the tasks extension is answered with a task here; for
   * any other request this resolves at once and the handler goes on as it was (an ordinary call,
   * or a task from the start). A task limit reached is thrown as its -32600 error. In a handler of
   * a tool not declared with `start: 'continueAsTask'`, this throws. See docs/tasks.md.
   *
   * @example
   * ```ts
   * const who = await ctx.elicit('Whose report?', ReportOwner); // in the call's rounds
   * if (who.action !== 'accept') return 'No report.';
   * await ctx.continueAsTask(); // the call is answered with a task from here
   * return buildReport(who.content.name, ctx.signal);
   * ```
   */
  abstract continueAsTask(): Promise<void>;

  /**
   * The sampling request `ctx.sample` sends: a string becomes one user message (`maxTokens`
   * default 1000), full params go as they are. For subclasses (Armature's own, a test context).
   */
  protected samplingParams(
    request: string | CreateMessageRequestParams,
    options: { maxTokens?: number; systemPrompt?: string },
  ): CreateMessageRequestParams {
    if (typeof request !== 'string') return request;
    return {
      messages: [{ role: 'user', content: { type: 'text', text: request } }],
      maxTokens: options.maxTokens ?? 1000,
      ...(options.systemPrompt ? { systemPrompt: options.systemPrompt } : {}),
    };
  }
}
