import {
  type Constructor,
  Context,
  type ContextLogger,
  type ElicitationSchema,
  type ElicitOutcome,
  type LogLevel,
  ToolError,
} from '@armature/core';
import type { AuthInfo, CreateMessageRequestParams, CreateMessageResult, Root } from '@modelcontextprotocol/client';
import { buildDto, DtoValidationError } from './dto-helpers.js';

/** Levels lowest first, as MCP logging orders them (RFC 5424 severities). */
const LEVELS: readonly LogLevel[] = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

/** One `ctx.log.*` call recorded by a `TestContext`. */
export interface RecordedLog {
  level: LogLevel;
  message: string;
  data?: unknown;
}

/** One `ctx.progress(...)` call recorded by a `TestContext`. */
export interface RecordedProgress {
  progress: number;
  total?: number;
  message?: string;
}

/** A scripted answer to `ctx.elicit` / `ctx.elicitUrl` (URL elicitations use only `action`). */
export type ElicitAnswer = ElicitOutcome<Record<string, unknown>>;

/** One question the method asked with `ctx.elicit` or `ctx.elicitUrl`. */
export interface RecordedElicitation {
  message: string;
  /** The DTO class asked for (`ctx.elicit(message, Dto)`). */
  dto?: Constructor;
  /** The raw schema asked for (`ctx.elicit(message, schema)`). */
  requestedSchema?: ElicitationSchema;
  /** The URL of a URL elicitation. */
  url?: string;
}

export interface TestContextOptions {
  /** The request's `_meta`, as `ctx.meta` returns it. Default `{}`. */
  meta?: Record<string, unknown>;
  /** `ctx.requestId`. Default `'test-request'`. */
  requestId?: string | number;
  /**
   * Lowest level recorded, like the level a client sets with `logging/setLevel`. Default `'debug'`
   * (everything).
   */
  logLevel?: LogLevel;
  /** A signal to follow: aborting it aborts `ctx.signal` too (e.g. a test's own timeout). */
  signal?: AbortSignal;
  /** `ctx.principal`: the authenticated caller. Default none. */
  principal?: AuthInfo;
  /** `ctx.attempt`: which run of a task this is (test a handler run again). Default 1. */
  attempt?: number;
  /** `ctx.idempotencyKey`: a task's key, stable across its attempts. Default none (an ordinary call). */
  idempotencyKey?: string;
  /**
   * The user's answers to `ctx.elicit` / `ctx.elicitUrl`: a list used in order, or a function.
   * Accepted content for a DTO is validated into an instance as in production. Without it,
   * asking throws.
   */
  elicit?: readonly ElicitAnswer[] | ((request: RecordedElicitation) => ElicitAnswer | Promise<ElicitAnswer>);
  /** The client model's reply to `ctx.sample`: a text, or a full result. Without it, sampling throws. */
  sample?: (request: CreateMessageRequestParams) => string | CreateMessageResult | Promise<string | CreateMessageResult>;
  /** What `ctx.roots()` returns. Without it, asking throws. */
  roots?: Root[];
}

/**
 * A `Context` for calling a tool method directly in a unit test. It records what the method sent
 * (`logs`, `progressUpdates`) and lets the test cancel the call (`abort()`).
 *
 * Like the real one, it stops recording progress once the signal is aborted (the spec asks a
 * cancelled request to stop sending notifications). Unlike the real one, it records progress
 * even though no client asked for it with a progress token: a test wants to see it.
 */
export class TestContext extends Context {
  /** Every `ctx.log.*` call at or above `logLevel`, in order. */
  readonly logs: RecordedLog[] = [];
  /** Every `ctx.progress(...)` call made before the signal was aborted, in order. */
  readonly progressUpdates: RecordedProgress[] = [];
  /** Every question asked with `ctx.elicit` / `ctx.elicitUrl`, in order. */
  readonly elicitations: RecordedElicitation[] = [];
  /** Every `ctx.sample` request, as the client would receive it. */
  readonly samplingRequests: CreateMessageRequestParams[] = [];
  readonly log: ContextLogger;
  readonly meta: Readonly<Record<string, unknown>>;
  readonly requestId: string | number;
  readonly principal: AuthInfo | undefined;
  readonly attempt: number;
  readonly idempotencyKey: string | undefined;
  private readonly controller = new AbortController();
  private readonly minimum: number;
  private answered = 0;

  constructor(private readonly options: TestContextOptions = {}) {
    super();
    this.principal = options.principal;
    this.meta = Object.freeze({ ...options.meta });
    this.requestId = options.requestId ?? 'test-request';
    this.attempt = options.attempt ?? 1;
    this.idempotencyKey = options.idempotencyKey;
    this.minimum = LEVELS.indexOf(options.logLevel ?? 'debug');
    if (options.signal) {
      const outer = options.signal;
      if (outer.aborted) this.controller.abort(outer.reason);
      else outer.addEventListener('abort', () => this.controller.abort(outer.reason), { once: true });
    }
    const record = (level: LogLevel) => async (message: string, data?: unknown) => {
      if (LEVELS.indexOf(level) < this.minimum) return;
      this.logs.push(data === undefined ? { level, message } : { level, message, data });
    };
    this.log = {
      debug: record('debug'),
      info: record('info'),
      notice: record('notice'),
      warning: record('warning'),
      error: record('error'),
      critical: record('critical'),
      alert: record('alert'),
      emergency: record('emergency'),
    };
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Whether the handler called `ctx.continueAsTask()` (a unit test runs it on, as one call). */
  continuedAsTask = false;

  async continueAsTask(): Promise<void> {
    this.continuedAsTask = true;
  }

  async progress(progress: number, total?: number, message?: string): Promise<void> {
    if (this.controller.signal.aborted) return;
    const update: RecordedProgress = { progress };
    if (total !== undefined) update.total = total;
    if (message !== undefined) update.message = message;
    this.progressUpdates.push(update);
  }

  elicit<T extends object>(message: string, dto: Constructor<T>): Promise<ElicitOutcome<T>>;
  elicit(message: string, requestedSchema: ElicitationSchema): Promise<ElicitOutcome<Record<string, unknown>>>;
  async elicit<T extends object>(message: string, dtoOrSchema: Constructor<T> | ElicitationSchema): Promise<ElicitOutcome<T>> {
    const request: RecordedElicitation =
      typeof dtoOrSchema === 'function' ? { message, dto: dtoOrSchema } : { message, requestedSchema: dtoOrSchema };
    const answer = await this.answer(request, 'elicit');
    if (answer.action !== 'accept') return { action: answer.action };
    if (!request.dto) return { action: 'accept', content: answer.content as T };
    try {
      return { action: 'accept', content: await buildDto(request.dto as Constructor<T>, answer.content) };
    } catch (error) {
      if (!(error instanceof DtoValidationError)) throw error;
      throw new ToolError([`The answer to "${message}" is invalid:`, ...error.issues].join('\n'));
    }
  }

  async elicitUrl(message: string, url: string): Promise<{ action: 'accept' | 'decline' | 'cancel' }> {
    return { action: (await this.answer({ message, url }, 'elicitUrl')).action };
  }

  async sample(
    request: string | CreateMessageRequestParams,
    options: { maxTokens?: number; systemPrompt?: string } = {},
  ): Promise<CreateMessageResult> {
    const params = this.samplingParams(request, options);
    this.samplingRequests.push(params);
    if (!this.options.sample) {
      throw new Error(
        'ctx.sample was called, but the test context has no model reply. Fix: createTestContext({ sample: () => "the reply" })',
      );
    }
    const reply = await this.options.sample(params);
    return typeof reply === 'string' ? { role: 'assistant', content: { type: 'text', text: reply }, model: 'test-model' } : reply;
  }

  async roots(): Promise<Root[]> {
    if (!this.options.roots) {
      throw new Error("ctx.roots was called, but the test context has none. Fix: createTestContext({ roots: [{ uri: 'file:///work' }] })");
    }
    return this.options.roots.map((root) => ({ ...root }));
  }

  private async answer(request: RecordedElicitation, method: string): Promise<ElicitAnswer> {
    this.elicitations.push(request);
    const source = this.options.elicit;
    if (typeof source === 'function') return source(request);
    const answer = source?.[this.answered];
    if (!answer) {
      throw new Error(
        `ctx.${method}("${request.message}") was question ${this.answered + 1}, but the test context has ${source?.length ?? 0} answer(s). ` +
          "Fix: createTestContext({ elicit: [{ action: 'accept', content: { ... } }] })",
      );
    }
    this.answered += 1;
    return answer;
  }

  /** Cancels the call, as a client's `notifications/cancelled` would: `ctx.signal` aborts. */
  abort(reason: unknown = new Error('The test cancelled the request')): void {
    this.controller.abort(reason);
  }
}

/**
 * A recording `Context` for plain-method tests.
 *
 * @example
 * ```ts
 * const ctx = createTestContext({ meta: { tenant: 'acme' } });
 * const result = await new WeatherServer(new FakeWeatherApi()).forecast(input, ctx);
 * expect(ctx.logs).toEqual([{ level: 'info', message: 'forecast for Oslo' }]);
 * ```
 */
export function createTestContext(options: TestContextOptions = {}): TestContext {
  return new TestContext(options);
}
