import { type Context, ToolError, text } from '@armature/core';
import type { Credentials } from './credentials.js';
import { fetchWithinOrigin } from './follow-redirects.js';
import { excerpt, OPENAPI_MESSAGES } from './messages.js';
import type { OpenApiOperation } from './openapi-operation.js';
import { buildOperationRequest } from './operation-request.js';

export interface OpenApiClientOptions {
  /** Where the API lives, e.g. `https://api.example.com/v1` (the document's `servers[0].url`). */
  baseUrl: string;
  /** The headers carrying the caller's credentials, made per call. Default: none. */
  credentials?: Credentials;
  /** Headers sent with every call (a user agent, say). Credentials win over them. */
  headers?: Readonly<Record<string, string>>;
  /** Milliseconds one HTTP call may take before the tool fails. Default 30 000. */
  timeoutMs?: number;
  /**
   * Most bytes of an answer the tool reads: a bigger one is a tool error, so one call cannot fill
   * the server's memory or the model's context. Default 1 MB.
   */
  maxResponseBytes?: number;
  /** The fetch to call. Default: the global `fetch`. */
  fetch?: typeof fetch;
}

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_RESPONSE_BYTES = 1_000_000;

/**
 * Calls the REST API behind generated OpenAPI tools: one HTTP call per tool call, with the
 * caller's credentials, the call's cancellation and a timeout. The JSON answer becomes the tool
 * result (`structuredContent` when the operation declares an object); an HTTP error becomes a tool
 * error with its status and the start of its body.
 *
 * @example
 * ```ts
 * const api = new OpenApiClient({ baseUrl: 'https://petstore.example.com/v1', credentials: apiKeyHeader('X-Api-Key', key) });
 * ```
 */
export class OpenApiClient {
  private readonly baseUrl: URL;
  private readonly timeoutMs: number;

  constructor(private readonly options: OpenApiClientOptions) {
    if (!options.baseUrl || !URL.canParse(options.baseUrl)) throw new Error(OPENAPI_MESSAGES.noBaseUrl(options.baseUrl));
    this.baseUrl = new URL(options.baseUrl);
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  /** Makes the operation's HTTP call with a validated DTO, for the tool method that received it. */
  async call(operation: OpenApiOperation, input: object, ctx: Context): Promise<unknown> {
    const request = buildOperationRequest(this.baseUrl, operation, input);
    const credentials = (await this.options.credentials?.(ctx, operation)) ?? {};
    const timeout = AbortSignal.timeout(this.timeoutMs);
    let response: Response;
    try {
      response = await fetchWithinOrigin(this.options.fetch ?? fetch, operation, {
        url: request.url,
        method: operation.method,
        headers: { ...this.options.headers, ...request.headers, ...credentials },
        body: request.body,
        signal: AbortSignal.any([ctx.signal, timeout]),
      });
    } catch (error) {
      if (error instanceof ToolError) throw error;
      throw this.failure(operation, request.url, error, ctx, timeout);
    }
    const limit = this.options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    let body: string | undefined;
    try {
      body = await readBody(response, limit);
    } catch (error) {
      throw this.failure(operation, request.url, error, ctx, timeout);
    }
    if (body === undefined) throw new ToolError(OPENAPI_MESSAGES.tooLarge(operation, limit));
    if (!response.ok) {
      throw new ToolError(OPENAPI_MESSAGES.httpStatus(operation, response.status, response.statusText, body), {
        status: response.status,
        body: excerpt(body),
      });
    }
    return toToolValue(operation, response, body);
  }

  private failure(operation: OpenApiOperation, url: URL, error: unknown, ctx: Context, timeout: AbortSignal): unknown {
    // A cancelled call gets no answer at all: let the cancellation through as it is.
    if (ctx.signal.aborted) return ctx.signal.reason ?? error;
    if (timeout.aborted) return new ToolError(OPENAPI_MESSAGES.timedOut(operation, this.timeoutMs));
    return new ToolError(OPENAPI_MESSAGES.unreachable(operation, `${url.origin}${url.pathname}`, error));
  }
}

/** The answer's text, or undefined (and the stream cancelled) once it passes `limit` bytes. */
async function readBody(response: Response, limit: number): Promise<string | undefined> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** A success answer as the value a tool returns (Armature turns an object into structuredContent). */
function toToolValue(operation: OpenApiOperation, response: Response, body: string): unknown {
  if (body.trim() === '') return text(`HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`);
  if (!/[/+]json\b/i.test(response.headers.get('content-type') ?? '')) return text(body);
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    throw new ToolError(OPENAPI_MESSAGES.badJson(operation, body));
  }
  const isObject = typeof value === 'object' && value !== null && !Array.isArray(value);
  return operation.structured && isObject ? value : text(JSON.stringify(value));
}
