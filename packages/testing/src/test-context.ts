import { Context, type ContextLogger, type LogLevel } from '@armature/core';

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
  readonly log: ContextLogger;
  readonly meta: Readonly<Record<string, unknown>>;
  readonly requestId: string | number;
  private readonly controller = new AbortController();
  private readonly minimum: number;

  constructor(options: TestContextOptions = {}) {
    super();
    this.meta = Object.freeze({ ...options.meta });
    this.requestId = options.requestId ?? 'test-request';
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

  async progress(progress: number, total?: number, message?: string): Promise<void> {
    if (this.controller.signal.aborted) return;
    const update: RecordedProgress = { progress };
    if (total !== undefined) update.total = total;
    if (message !== undefined) update.message = message;
    this.progressUpdates.push(update);
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
