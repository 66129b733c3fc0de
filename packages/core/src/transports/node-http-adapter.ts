import type { IncomingMessage, ServerResponse } from 'node:http';
import { DEFAULT_MAX_REQUEST_BODY_SIZE } from '@modelcontextprotocol/server';
import type { HttpEndpoint } from './http-endpoint.js';
import { jsonRpcErrorBody, jsonRpcErrorResponse } from './json-rpc-error-response.js';

/**
 * Reads and drops the rest of a refused body (nothing is kept), then calls `done`: closing in
 * stages, RFC 9112 §9.6. Bounded: past 256 MiB or 5 s the connection is closed anyway.
 */
export function discardBody(req: IncomingMessage, done: () => void): void {
  if (req.readableEnded) {
    done();
    return;
  }
  let seen = 0;
  const timer = setTimeout(() => req.socket.destroy(), 5_000);
  timer.unref();
  req.on('data', (chunk: Buffer) => {
    seen += chunk.length;
    if (seen > 256 * 1024 * 1024) req.socket.destroy();
  });
  req.once('end', () => {
    clearTimeout(timer);
    done();
  });
  req.once('close', () => clearTimeout(timer));
}

/** The request's URL, or undefined when its Host header cannot be one (`localhost:99999`, garbage). */
function urlOf(req: IncomingMessage): string | undefined {
  const host = req.headers.host ?? 'localhost';
  // `new URL` would also take a Host carrying a path or credentials; a Host names a host and port only.
  if (/[\s/@?#\\]/.test(host)) return undefined;
  try {
    return new URL(`http://${host}${req.url ?? '/'}`).href;
  } catch {
    return undefined;
  }
}

/** A body-less web `Request` carrying the method, URL and headers: enough to admit or refuse. */
function headOf(req: IncomingMessage, url: string): Request | undefined {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name.startsWith(':')) continue;
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else headers.set(name, value);
  }
  try {
    return new Request(url, { method: req.method ?? 'GET', headers });
  } catch {
    return undefined; // CONNECT, TRACE and other methods a Request cannot carry.
  }
}

/** Writes a refusal, then drains whatever body the client is still sending. */
function writeRefusal(req: IncomingMessage, res: ServerResponse, status: number, headers: Record<string, string>, text: string): void {
  res.writeHead(status, headers);
  res.write(text);
  // Ending only once the body is drained: Node tears the socket down when a response ends before
  // its request was read, and a client still writing would see EPIPE instead of the status.
  discardBody(req, () => res.end());
}

async function refuse(req: IncomingMessage, res: ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string> = {};
  for (const [name, value] of response.headers) headers[name] = value;
  writeRefusal(req, res, response.status, headers, await response.text());
}

function badRequest(message: string): Response {
  return jsonRpcErrorResponse(400, -32600, message);
}

/**
 * A node:http handler for an endpoint that decides from the headers first (Host, Origin, size,
 * bearer token) and reads the body only for an admitted request, with the peer address for
 * per-client caps. Responses are written by the SDK's `toNodeHandler` (backpressure on SSE).
 */
export function toAdmittingNodeHandler(endpoint: HttpEndpoint, options: { maxRequestBodySize?: number }) {
  const maxBody = options.maxRequestBodySize ?? DEFAULT_MAX_REQUEST_BODY_SIZE;
  // The SDK's Node adapter is loaded with the first HTTP handler: a stdio server never loads it.
  const nodeAdapter = import('@modelcontextprotocol/node');
  return async (req: IncomingMessage, res: ServerResponse, parsedBody?: unknown): Promise<void> => {
    // Refused in the same tick, before anything else: the client is still sending the body.
    if (Number(req.headers['content-length'] ?? 0) > maxBody) {
      const message = `Payload Too Large: Request body must not exceed ${maxBody} bytes`;
      writeRefusal(req, res, 413, { 'content-type': 'application/json' }, jsonRpcErrorBody(-32000, message));
      return;
    }
    const url = urlOf(req);
    if (!url) {
      const host = String(req.headers.host).slice(0, 100);
      await refuse(req, res, badRequest(`Bad Request: the Host header ${JSON.stringify(host)} is not a valid host[:port]`));
      return;
    }
    const head = headOf(req, url);
    if (!head) {
      await refuse(req, res, badRequest(`Bad Request: method ${req.method} is not supported`));
      return;
    }
    let admitted: Awaited<ReturnType<HttpEndpoint['admit']>>;
    try {
      admitted = await endpoint.admit(head, req.socket.remoteAddress);
    } catch {
      // Nothing a client sends should get here; if it does, it gets an answer, not a dropped request.
      await refuse(req, res, jsonRpcErrorResponse(500, -32603, 'Internal server error'));
      return;
    }
    if ('response' in admitted) {
      await refuse(req, res, admitted.response);
      return;
    }
    const { toNodeHandler } = await nodeAdapter;
    const serve = toNodeHandler({ fetch: (request: Request) => endpoint.serve(request, admitted.caller) }, options);
    await serve(req, res, typeof parsedBody === 'function' ? undefined : parsedBody);
  };
}
