import type { Server } from '@modelcontextprotocol/server';
import { isThenable, type MaybePromise } from '../context/maybe-promise.js';
import type { RuntimeStats } from '../runtime/call-request.js';
import type { SdkInternals } from '../seams/sdk-internals.js';
import { isEngineMethod } from './accept-table.js';
import type { Answer, Era, Invoke, RequestHandler } from './era-encoding.js';
import type { Exchange } from './exchange.js';
import { ExchangeSource } from './exchange-source.js';

/**
 * Serves the requests a front accepted (see accept-table.ts) with the same handlers the SDK path
 * runs, without the SDK's per-message parsing and context building, and answers as the SDK would,
 * byte for byte: one way to run a request, cancel it and send its notifications, whichever wire
 * and revision it came from. What differs per revision is the `Era`.
 */
export class RequestEngine {
  private readonly invokers = new Map<string, Invoke>();

  constructor(
    private readonly server: Server,
    private readonly sdk: SdkInternals,
    private readonly stats: RuntimeStats,
    private readonly era: Era,
  ) {}

  /** Serves `method` with `handler` (the one the SDK path runs), if the engine serves it. */
  handle(method: string, handler: RequestHandler): void {
    if (isEngineMethod(method)) this.invokers.set(method, this.era.prepare(method, handler));
  }

  /** Whether a handler was given for `method`. */
  serves(method: string): boolean {
    return this.invokers.has(method);
  }

  /**
   * The answer to `exchange` (one of the methods it `serves`), or undefined when the client
   * cancelled or went away first: then nothing may be sent. A promise only when the handler made one.
   */
  run(exchange: Exchange, takesText = false): MaybePromise<Answer | undefined> {
    const invoke = this.invokers.get(exchange.method) as Invoke;
    const source = new ExchangeSource(this.server, this.sdk, exchange);
    exchange.onGone((reason) => source.abort(reason));
    if (source.aborted) return undefined;
    this.stats.engine++;
    let result: unknown;
    try {
      result = invoke(exchange.method, exchange.params, source);
    } catch (error) {
      return this.failed(source, exchange, error);
    }
    if (!isThenable(result)) return this.answered(source, exchange, result, takesText);
    return Promise.resolve(result).then(
      (value) => this.answered(source, exchange, value, takesText),
      (error: unknown) => this.failed(source, exchange, error),
    );
  }

  /** The encoded result; a result the era refuses is answered with the error it threw. */
  private answered(source: ExchangeSource, exchange: Exchange, result: unknown, takesText: boolean): Answer | undefined {
    if (source.aborted) return undefined;
    try {
      return this.era.answer(exchange.id, exchange.method, result, takesText);
    } catch (error) {
      return this.era.error(exchange.id, error);
    }
  }

  private failed(source: ExchangeSource, exchange: Exchange, error: unknown): Answer | undefined {
    return source.aborted ? undefined : this.era.error(exchange.id, error);
  }
}
