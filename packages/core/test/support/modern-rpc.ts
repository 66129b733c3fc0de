/** The per-request client capabilities of a client that declares the tasks extension (2026-07-28). */
export const WITH_TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } };

/** A JSON-RPC answer as it came over the wire. */
export interface RpcAnswer {
  status: number;
  body: { jsonrpc: string; id: number; result?: Record<string, unknown>; error?: { code: number; message: string; data?: unknown } };
}

/**
 * One raw 2026-07-28 request over HTTP, as any client could send it: the per-request envelope in
 * `_meta` (with `capabilities` as the client's), the Mcp-Method and Mcp-Name headers
 * (`Mcp-Name` is the tool's name or the task's id, as the tasks extension asks), and `headers` besides.
 */
export async function modernRpc(
  url: string | URL,
  method: string,
  params: Record<string, unknown>,
  capabilities: Record<string, unknown> = {},
  token?: string,
  /** More request headers (e.g. `x-forwarded-for`, to come from another client behind `trustProxy`). */
  headers: Record<string, string> = {},
): Promise<RpcAnswer> {
  const response = await modernPost(url, method, params, capabilities, { token, headers });
  const text = await response.text();
  // The answer comes as JSON, or as one SSE event when the server streamed.
  const json = text.startsWith('{') ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? text);
  return { status: response.status, body: JSON.parse(json) as RpcAnswer['body'] };
}

/**
 * The request `modernRpc` sends, its response as it comes (a listen stream, say): `id` is the
 * JSON-RPC id, `timeoutMs` how long before the request is aborted.
 */
export function modernPost(
  url: string | URL,
  method: string,
  params: Record<string, unknown>,
  capabilities: Record<string, unknown> = {},
  options: { token?: string; id?: string | number; timeoutMs?: number; headers?: Record<string, string> } = {},
): Promise<Response> {
  const name = params.name ?? params.taskId;
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
      ...options.headers,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: options.id ?? 1,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
          'io.modelcontextprotocol/clientCapabilities': capabilities,
        },
      },
    }),
    signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
  });
}
