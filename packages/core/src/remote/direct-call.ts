import type { Dispatcher, Pool } from 'undici';
import { MODERN_REVISION } from '../context/revisions.js';
import type { ClientCodec } from '../seams/client-codec.js';
import { headerValueOf } from '../validation/param-headers.js';
import type { ClientSdk } from './client-sdk.js';
import { AnswerReader, type AnswerStream, type AnswerTools, MAX_ANSWER_BYTES, NotAnAnswerError } from './direct-answer.js';

type Params = Record<string, unknown>;
type Result = Record<string, unknown>;

/** Connections kept to one remote; more calls at once wait for one. */
const MAX_CONNECTIONS = 64;

/** What one call on the direct path is given by the forwarded call. */
export interface DirectCallOptions {
  readonly signal: AbortSignal;
  /** Between two signs of life (each progress notification restarts it). */
  readonly timeoutMs: number;
  /** The tool's `Mcp-Param-*` headers. */
  readonly headers?: Record<string, string>;
  readonly onprogress?: (progress: { progress: number; total?: number; message?: string }) => void;
  readonly onlog: (params: Params) => void;
}

/** A socket error on the direct path: the connection failed or was lost (its `cause` is the system error). */
export class DirectConnectionError extends Error {
  constructor(cause: Error) {
    super(cause.message, { cause });
    this.name = 'DirectConnectionError';
  }
}

/**
 * The direct path of the tool calls forwarded to a 2026-07-28 Streamable HTTP remote: each call is
 * one POST on a pooled keep-alive connection (undici's `Pool`, whose dispatcher hands the answer
 * over without a stream or promise of its own), in the wire form of the official client (its
 * `_meta` envelope, `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*` and the remote's `headers`), its answer
 * read as JSON, or as an event stream when the remote streams it. The answer means what it means to
 * the official client: the same result (decoded by the client's own codec), the same JSON-RPC and
 * HTTP errors. A redirect or an authentication challenge is not handled here: `call` resolves
 * undefined without the remote having run anything, and the call goes through the official client.
 */
export class DirectCall {
  private readonly pool: Pool;
  /** The remote's path and query, where each POST goes. */
  private readonly path: string;
  private readonly headers: Record<string, string>;
  private nextId = 1;

  /**
   * The direct path to the remote at `url` (sent `headers` and the client's `envelope`). What it
   * needs is loaded here, when a remote first turns out to speak 2026-07-28 over HTTP: an app
   * without one loads none of it.
   */
  static async open(
    url: URL,
    headers: Readonly<Record<string, string>> | undefined,
    envelope: Readonly<Params>,
    sdk: ClientSdk,
    codec: ClientCodec,
  ): Promise<DirectCall> {
    const [{ Pool }, { createParser }] = await Promise.all([import('undici'), import('eventsource-parser')]);
    return new DirectCall(url, headers, envelope, { sdk, codec, createParser }, Pool);
  }

  private constructor(
    url: URL,
    headers: Readonly<Record<string, string>> | undefined,
    private readonly envelope: Readonly<Params>,
    private readonly tools: AnswerTools,
    PoolOf: typeof Pool,
  ) {
    // A call's time is its own (timeoutMs between signs of life, maxCallMs in all): undici's header
    // and body timers are off. Undici closes a connection left idle before the remote would (by its
    // Keep-Alive hint, or after 4 s), so a POST is not written on a connection the remote is closing.
    this.pool = new PoolOf(url.origin, { connections: MAX_CONNECTIONS, headersTimeout: 0, bodyTimeout: 0 });
    this.path = `${url.pathname}${url.search}`;
    // The remote's headers first, then those of the protocol, as the official client sets them.
    const own = Object.fromEntries(Object.entries(headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]));
    const accept = new Set([
      ...(own.accept?.split(',').map((type) => type.trim().toLowerCase()) ?? []),
      'application/json',
      'text/event-stream',
    ]);
    this.headers = {
      ...own,
      'mcp-protocol-version': MODERN_REVISION,
      'mcp-method': 'tools/call',
      'content-type': 'application/json',
      accept: [...accept].join(', '),
    };
  }

  /**
   * Sends tools/call with `params` (`name`, `arguments`, `_meta`, and a later round's answers);
   * resolves its result (`input_required` as the official client hands it over with
   * `allowInputRequired`), or undefined when the official client must send it instead.
   */
  call(params: Params, options: DirectCallOptions): Promise<Result | undefined> {
    const id = this.nextId++;
    const meta = { ...this.envelope, ...(params._meta as Params | undefined), ...(options.onprogress ? { progressToken: id } : {}) };
    const body = JSON.stringify({ method: 'tools/call', params: { ...params, _meta: meta }, jsonrpc: '2.0', id });
    const headers = {
      ...this.headers,
      ...options.headers,
      ...(typeof params.name === 'string' ? { 'mcp-name': headerValueOf(params.name) } : {}),
    };
    return new Promise((resolve, reject) => {
      const exchange = new Exchange(id, options, this.tools, resolve, reject);
      if (exchange.begin()) this.pool.dispatch({ path: this.path, method: 'POST', headers, body }, exchange);
    });
  }

  /** Closes the pooled connections. */
  async close(): Promise<void> {
    await this.pool.destroy().catch(() => undefined);
  }
}

/**
 * One POST of the direct path and its answer, as undici's dispatcher hands them over. The call's
 * end (its answer, an error, its signal or its timeout) settles it once; an error closes the
 * request (closing its stream is how a 2026-07-28 HTTP client cancels it), an answer lets the rest
 * of the body be read, so that the connection is kept.
 */
class Exchange implements Dispatcher.DispatchHandler {
  private readonly reader: AnswerReader;
  private controller?: Dispatcher.DispatchController;
  private timer?: NodeJS.Timeout;
  private done = false;
  /** The response is over (read to its end, or failed): nothing is left to close. */
  private over = false;
  private status = 0;
  private statusText = '';
  /** The body being read whole (a JSON answer, or an HTTP error's text), and its size. */
  private chunks?: Buffer[];
  private size = 0;
  /** The body being read as an event stream. */
  private stream?: AnswerStream;

  constructor(
    id: number,
    private readonly options: DirectCallOptions,
    private readonly tools: AnswerTools,
    private readonly resolve: (result: Result | undefined) => void,
    private readonly reject: (error: unknown) => void,
  ) {
    this.reader = new AnswerReader(id, tools, {
      progress: (progress) => {
        options.onprogress?.(progress);
        this.timer?.refresh();
      },
      log: options.onlog,
    });
  }

  /** Starts the call's clock; false when its signal had already aborted (the call is over). */
  begin(): boolean {
    if (this.options.signal.aborted) {
      this.cancelled();
      return false;
    }
    this.options.signal.addEventListener('abort', this.cancelled, { once: true });
    this.timer = setTimeout(this.timedOut, this.options.timeoutMs);
    return true;
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    // Over while it waited for a connection: it is not sent.
    if (this.done) controller.abort(new Error('the call is over'));
  }

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    status: number,
    headers: Record<string, string | string[] | undefined>,
    statusText?: string,
  ): void {
    if (this.done) return;
    this.status = status;
    this.statusText = statusText ?? '';
    // A redirect or an authentication challenge: the remote ran nothing; the official client knows what to do.
    if ((status >= 300 && status < 400) || status === 401 || status === 403) this.finish(undefined, undefined);
    else if (status < 200 || status >= 300) this.chunks = [];
    else if (status !== 200) this.finish(new NotAnAnswerError('notResponse'));
    else this.read(headers['content-type']);
  }

  /** Reads a 200's body by its Content-Type `header`: JSON whole, an event stream as it comes. */
  private read(header: string | string[] | undefined): void {
    const type = Array.isArray(header) ? header[0] : header;
    const essence = type?.split(';')[0]?.trim().toLowerCase();
    if (essence === 'application/json') this.chunks = [];
    else if (essence === 'text/event-stream') this.stream = this.reader.eventStream((error, result) => this.finish(error, result));
    else this.finish(new NotAnAnswerError('contentType', type));
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.done) return;
    if (this.stream) {
      this.stream.feed(chunk);
      return;
    }
    this.size += chunk.length;
    if (this.size > MAX_ANSWER_BYTES) this.finish(new NotAnAnswerError('tooLarge', MAX_ANSWER_BYTES));
    else this.chunks?.push(chunk);
  }

  onResponseEnd(): void {
    this.over = true;
    if (this.done) return;
    if (this.stream) {
      this.stream.ended();
      return;
    }
    const text = Buffer.concat(this.chunks ?? [], this.size).toString('utf8');
    try {
      this.finish(undefined, this.status === 200 ? this.reader.fromJson(text) : this.refused(text));
    } catch (error) {
      this.finish(error);
    }
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.over = true;
    this.finish(new DirectConnectionError(error));
  }

  /** The error an HTTP error status means, with its body's `text`: a 2026-07-28 remote may refuse with its JSON-RPC error under a 400. */
  private refused(text: string): never {
    const { sdk } = this.tools;
    const error = this.status === 400 ? this.reader.errorIn(text) : undefined;
    throw (
      error ??
      new sdk.SdkHttpError(sdk.SdkErrorCode.ClientHttpNotImplemented, `Error POSTing to endpoint: ${text}`, {
        status: this.status,
        statusText: this.statusText,
        text,
      })
    );
  }

  private finish(error: unknown, result?: Result): void {
    if (this.done) return;
    this.done = true;
    clearTimeout(this.timer);
    this.options.signal.removeEventListener('abort', this.cancelled);
    if (error === undefined) this.resolve(result);
    else {
      if (!this.over) this.controller?.abort(error instanceof Error ? error : new Error(String(error)));
      this.reject(error);
    }
  }

  /** As the official client: the signal's reason when it is the SDK's error, a timeout error otherwise. */
  private readonly cancelled = (): void => {
    const { sdk } = this.tools;
    const reason: unknown = this.options.signal.reason;
    this.finish(reason instanceof sdk.SdkError ? reason : new sdk.SdkError(sdk.SdkErrorCode.RequestTimeout, String(reason)));
  };

  private readonly timedOut = (): void => {
    const { sdk } = this.tools;
    this.finish(new sdk.SdkError(sdk.SdkErrorCode.RequestTimeout, 'Request timed out', { timeout: this.options.timeoutMs }));
  };
}
