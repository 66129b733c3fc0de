import type { Agent, ClientRequest, IncomingMessage, RequestOptions, request } from 'node:http';
import { urlToHttpOptions } from 'node:url';
import { MODERN_REVISION } from '../context/revisions.js';
import type { ClientCodec } from '../seams/client-codec.js';
import { headerValueOf } from '../validation/param-headers.js';
import type { ClientSdk } from './client-sdk.js';
import { AnswerReader, type AnswerTools, MAX_ANSWER_BYTES, NotAnAnswerError } from './direct-answer.js';

type Params = Record<string, unknown>;
type Result = Record<string, unknown>;

/** Connections kept to one remote; more calls at once wait for one. */
const MAX_SOCKETS = 64;

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
 * one POST on a pooled keep-alive connection, in the wire form of the official client (its `_meta`
 * envelope, `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*` and the remote's `headers`), its answer read as
 * JSON, or as an event stream when the remote streams it. The answer means what it means to the
 * official client: the same result (decoded by the client's own codec), the same JSON-RPC and HTTP
 * errors. A redirect or an authentication challenge is not handled here: `call` resolves undefined
 * without the remote having run anything, and the call goes through the official client.
 */
export class DirectCall {
  private readonly agent: Agent;
  private readonly openRequest: typeof request;
  /** Where each POST goes, as `http.request` reads `url` (worked out once, not per call). */
  private readonly target: RequestOptions;
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
    const [http, { createParser }] = await Promise.all([
      url.protocol === 'https:' ? import('node:https') : import('node:http'),
      import('eventsource-parser'),
    ]);
    return new DirectCall(url, headers, envelope, { sdk, codec, createParser }, http);
  }

  private constructor(
    url: URL,
    headers: Readonly<Record<string, string>> | undefined,
    private readonly envelope: Readonly<Params>,
    private readonly tools: AnswerTools,
    http: { Agent: typeof Agent; request: typeof request },
  ) {
    this.agent = new http.Agent({ keepAlive: true, maxSockets: MAX_SOCKETS });
    this.openRequest = http.request;
    this.target = { ...urlToHttpOptions(url), method: 'POST', agent: this.agent };
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
    return this.post(params, options, true);
  }

  /** Closes the pooled connections. */
  close(): void {
    this.agent.destroy();
  }

  private post(params: Params, options: DirectCallOptions, mayRetry: boolean): Promise<Result | undefined> {
    const { sdk } = this.tools;
    const id = this.nextId++;
    const meta = { ...this.envelope, ...(params._meta as Params | undefined), ...(options.onprogress ? { progressToken: id } : {}) };
    const body = JSON.stringify({ method: 'tools/call', params: { ...params, _meta: meta }, jsonrpc: '2.0', id });
    const headers = {
      ...this.headers,
      ...options.headers,
      ...(typeof params.name === 'string' ? { 'mcp-name': headerValueOf(params.name) } : {}),
      'content-length': String(Buffer.byteLength(body)),
    };
    return new Promise((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      let answered = false;
      let done = false;
      let req: ClientRequest | undefined;
      const finish = (error: unknown, result?: Result) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        options.signal.removeEventListener('abort', aborted);
        if (error === undefined) return resolve(result);
        // Closing the request's stream is how a 2026-07-28 HTTP client cancels it.
        req?.destroy();
        reject(error);
      };
      // As the official client: the signal's reason when it is the SDK's error, a timeout error otherwise.
      const aborted = () => {
        const reason: unknown = options.signal.reason;
        finish(reason instanceof sdk.SdkError ? reason : new sdk.SdkError(sdk.SdkErrorCode.RequestTimeout, String(reason)));
      };
      const arm = () => {
        clearTimeout(timer);
        timer = setTimeout(
          () => finish(new sdk.SdkError(sdk.SdkErrorCode.RequestTimeout, 'Request timed out', { timeout: options.timeoutMs })),
          options.timeoutMs,
        );
      };
      if (options.signal.aborted) return aborted();
      options.signal.addEventListener('abort', aborted, { once: true });
      arm();
      const reader = new AnswerReader(id, this.tools, {
        progress: (progress) => {
          options.onprogress?.(progress);
          arm();
        },
        log: options.onlog,
      });
      req = this.openRequest({ ...this.target, headers }, (res) => {
        answered = true;
        this.answer(res, reader).then(
          (result) => finish(undefined, result),
          (error) => finish(error),
        );
      });
      req.on('error', (error: NodeJS.ErrnoException) => {
        // A kept-alive connection the remote closed as it went idle, while this request was written:
        // the remote read none of it, so it goes again on a fresh connection (as Node's docs advise).
        if (mayRetry && !answered && req?.reusedSocket && error.code === 'ECONNRESET') {
          clearTimeout(timer);
          options.signal.removeEventListener('abort', aborted);
          done = true;
          this.post(params, options, false).then(resolve, reject);
          return;
        }
        finish(new DirectConnectionError(error));
      });
      req.end(body);
    });
  }

  /** The result `res` carries, or undefined to hand the call over. */
  private async answer(res: IncomingMessage, reader: AnswerReader): Promise<Result | undefined> {
    const { sdk } = this.tools;
    const status = res.statusCode ?? 0;
    if ((status >= 300 && status < 400) || status === 401 || status === 403) {
      // A redirect or an authentication challenge: the remote ran nothing; the official client knows what to do.
      res.resume();
      return undefined;
    }
    if (status < 200 || status >= 300) {
      const text = await readText(res);
      // A 2026-07-28 remote may refuse a request with its JSON-RPC error under a 400.
      if (status === 400) {
        const error = reader.errorIn(text);
        if (error) throw error;
      }
      throw new sdk.SdkHttpError(sdk.SdkErrorCode.ClientHttpNotImplemented, `Error POSTing to endpoint: ${text}`, {
        status,
        statusText: res.statusMessage ?? '',
        text,
      });
    }
    if (status !== 200) {
      res.resume();
      throw new NotAnAnswerError('notResponse');
    }
    const type = res.headers['content-type'];
    const essence = type?.split(';')[0]?.trim().toLowerCase();
    if (essence === 'application/json') return reader.fromJson(await readText(res));
    if (essence === 'text/event-stream') return reader.fromStream(res);
    res.resume();
    throw new NotAnAnswerError('contentType', type);
  }
}

/** `res`'s body as text, at most MAX_ANSWER_BYTES of it. */
function readText(res: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    res.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_ANSWER_BYTES) {
        res.destroy();
        reject(new NotAnAnswerError('tooLarge', MAX_ANSWER_BYTES));
      } else chunks.push(chunk);
    });
    res.on('end', () => resolve(Buffer.concat(chunks, size).toString('utf8')));
    res.on('error', reject);
    res.on('close', () => {
      if (!res.complete) reject(new DirectConnectionError(new Error('the connection closed before the answer ended')));
    });
  });
}
