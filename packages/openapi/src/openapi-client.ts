import { type Context, ToolError, text } from '@armature/core';
import type { Credentials } from './credentials.js';
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
  /** The fetch to call. Default: the global `fetch`. */
  fetch?: typeof fetch;
}

const DEFAULT_TIMEOUT_MS = 30_000;

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
  private readonly baseUrl: string;
  private readonly timeoutMs: number;

  constructor(private readonly options: OpenApiClientOptions) {
    if (!options.baseUrl) throw new Error(OPENAPI_MESSAGES.noEmptyBaseUrl());
    this.baseUrl = options.baseUrl;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  /** Makes the operation's HTTP call with a validated DTO, for the tool method that received it. */
  async call(operation: OpenApiOperation, input: object, ctx: Context): Promise<unknown> {
    const request = buildOperationRequest(this.baseUrl, operation, input);
    const credentials = (await this.options.credentials?.(ctx, operation)) ?? {};
    const timeout = AbortSignal.timeout(this.timeoutMs);
    let response: Response;
    try {
      response = await (this.options.fetch ?? fetch)(request.url, {
        method: operation.method,
        headers: { ...this.options.headers, ...request.headers, ...credentials },
        body: request.body,
        signal: AbortSignal.any([ctx.signal, timeout]),
      });
    } catch (error) {
      throw this.failure(operation, request.url, error, ctx, timeout);
    }
    let body: string;
    try {
      body = await response.text();
    } catch (error) {
      throw this.failure(operation, request.url, error, ctx, timeout);
    }
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
