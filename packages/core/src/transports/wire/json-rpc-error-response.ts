/**
 * The one way the HTTP transport answers with a JSON-RPC error of its own (before or instead of the
 * SDK): `{"jsonrpc":"2.0","error":{code,message},"id":...}` with an HTTP status.
 */
export function jsonRpcErrorResponse(
  status: number,
  code: number,
  message: string,
  id: unknown = null,
  headers: Record<string, string> = {},
  data?: unknown,
): Response {
  return new Response(jsonRpcErrorBody(code, message, id, data), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

/** The body of such an answer, for writers that cannot wait for a `Response` to be read. */
export function jsonRpcErrorBody(code: number, message: string, id: unknown = null, data?: unknown): string {
  return JSON.stringify({ jsonrpc: '2.0', error: data === undefined ? { code, message } : { code, message, data }, id });
}

/**
 * A number id beyond ±(2^53-1) has already been rounded by JSON.parse: it is refused, and echoed
 * exactly as the client wrote it (`rawId`, the token from the message text), so the answer can never
 * carry another request's id.
 */
export function unsafeIdResponse(rawId: string | undefined): Response {
  const raw = rawId ?? 'null';
  const message = `Invalid Request: the id ${raw} is not an integer between -(2^53-1) and 2^53-1; use a smaller integer or a string id`;
  return new Response(`{"jsonrpc":"2.0","error":${JSON.stringify({ code: -32600, message })},"id":${raw}}`, {
    status: 400,
    headers: { 'content-type': 'application/json' },
  });
}
