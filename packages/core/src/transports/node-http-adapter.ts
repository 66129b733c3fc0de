import type { IncomingMessage, ServerResponse } from 'node:http';
import { DEFAULT_MAX_REQUEST_BODY_SIZE } from '@modelcontextprotocol/server';
import type { RequestHead } from '../auth/bearer-auth.js';
import { rememberClientAddress } from '../context/client-address-of.js';
import { bindNotificationValve, type NotificationStream, NotificationValve } from '../context/notification-valve.js';
import { wireMessages } from '../messages/wire-messages.js';
import { continueSent } from '../seams/node-http.js';
import type { Caller } from './http-caller.js';
import type { HttpEndpoint } from './http-endpoint.js';
import type { ParsedBody } from './http-messages.js';
import { jsonRpcErrorBody, jsonRpcErrorResponse } from './json-rpc-error-response.js';
import { ModernExchange } from './modern-exchange.js';

/** How much of a refused body is read and dropped, so that a small one ends cleanly. */
const DRAIN_BYTES = 256 * 1024;
/**
 * How long a refused request's connection stays open once its answer is written, so the client
 * reads the answer before the close (RFC 9112 §9.6, "lingering close"). The answer is complete
 * from the first millisecond: this only delays freeing the socket.
 */
const LINGER_MS = 2_000;
const JSON_TYPE = Object.freeze({ 'content-type': 'application/json' });

export interface AdmittingNodeHandlerOptions {
  /** Largest request body, answered 413 beyond (Content-Length or counted as it arrives). */
  maxRequestBodySize?: number;
  /** Most `ctx.progress`/`ctx.log` notifications kept per SSE response while the client is not reading. */
  maxPendingNotifications?: number;
}

/** True when the request says a body follows (Content-Length above 0, or chunked). */
function hasBody(req: IncomingMessage): boolean {
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
}

/** True when the client sent `Expect: 100-continue` and is still waiting for the go-ahead. */
function awaitingContinue(req: IncomingMessage, res: ServerResponse): boolean {
  // Node sends `100 Continue` itself unless the server listens for 'checkContinue' (listenHttp does).
  return /100-continue/i.test(req.headers.expect ?? '') && continueSent(res) !== true;
}

/**
 * After a complete refusal: drops up to `budget` more body bytes so a small body ends cleanly
 * (then the response is ended and the connection closes normally); past that, stops reading and
 * closes the connection after `LINGER_MS`. Nothing is kept, and a client that stops sending is
 * never waited for: its answer is already complete.
 */
function closeAfterRefusal(req: IncomingMessage, res: ServerResponse, budget: number): void {
  if (req.complete || req.readableEnded) {
    res.end();
    return;
  }
  const timer = setTimeout(() => req.socket.destroy(), LINGER_MS);
  timer.unref();
  req.once('close', () => clearTimeout(timer));
  if (budget === 0) return; // paused already: nothing more is read
  let seen = 0;
  const onData = (chunk: Buffer) => {
    seen += chunk.length;
    if (seen <= budget) return;
    req.off('data', onData);
    req.pause(); // the client's writes now stall; the socket closes when the timer fires
  };
  req.on('data', onData);
  req.once('end', () => {
    clearTimeout(timer);
    res.end();
  });
}

/**
 * Writes a complete refusal at once (status, headers and a Content-Length body, so the client
 * has its whole answer whatever the body's fate), then closes in stages (`closeAfterRefusal`).
 */
function writeRefusal(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  headers: Record<string, string>,
  text: string,
  budget = DRAIN_BYTES,
): void {
  const unread = hasBody(req) && !req.complete;
  const waiting = awaitingContinue(req, res);
  res.writeHead(status, {
    ...headers,
    'content-length': String(Buffer.byteLength(text)),
    // A body left unread cannot be followed by another request on this connection.
    ...(unread ? { connection: 'close' } : {}),
  });
  if (waiting) {
    // `Expect: 100-continue` answered with a final status: the client does not send the body.
    res.end(text);
    return;
  }
  res.write(text);
  closeAfterRefusal(req, res, budget);
}

async function refuse(req: IncomingMessage, res: ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string> = {};
  for (const [name, value] of response.headers) headers[name] = value;
  writeRefusal(req, res, response.status, headers, await response.text());
}

function tooLargeBody(maxBody: number): string {
  return jsonRpcErrorBody(-32000, wireMessages.bodyTooLarge(maxBody));
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

function headersOf(req: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name.startsWith(':')) continue;
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else headers.set(name, value);
  }
  return headers;
}

/** The methods a web `Request` can carry (CONNECT, TRACE and TRACK it cannot). */
const FORBIDDEN_METHODS = /^(connect|trace|track)$/i;
/** An HTTP token: what a request method must be. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * The method, URL and headers of a request, read straight from the `IncomingMessage`: enough to
 * admit or refuse it without a web `Request`. Undefined for a method a `Request` cannot carry.
 */
function headOf(req: IncomingMessage, url: string): RequestHead | undefined {
  const method = req.method ?? 'GET';
  if (!TOKEN.test(method) || FORBIDDEN_METHODS.test(method)) return undefined;
  const headers = req.headers;
  return {
    method: NORMALIZED_METHODS.has(method.toUpperCase()) ? method.toUpperCase() : method,
    url,
    headers: {
      get(name: string) {
        const value = headers[name.toLowerCase()];
        if (value === undefined) return null;
        return Array.isArray(value) ? value.join(', ') : value;
      },
    },
  };
}
/** The methods a web `Request` writes in upper case whatever their case (the Fetch standard's normalisation). */
const NORMALIZED_METHODS = new Set(['DELETE', 'GET', 'HEAD', 'OPTIONS', 'POST', 'PUT']);

/**
 * The body as one buffer, counted as it arrives: undefined as soon as it passes `max` (what was
 * read is dropped at once, so a chunked body never costs more than the limit), or when the
 * client goes away before its end.
 */
function readBody(req: IncomingMessage, max: number): Promise<Buffer | 'too large' | undefined> {
  return new Promise((resolve) => {
    let parts: Buffer[] = [];
    let size = 0;
    const finish = (outcome: Buffer | 'too large' | undefined) => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('close', onClose);
      parts = [];
      resolve(outcome);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) {
        req.pause();
        finish('too large');
      } else parts.push(chunk);
    };
    const onEnd = () => finish(parts.length === 1 ? parts[0] : Buffer.concat(parts, size));
    const onClose = () => finish(undefined);
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('close', onClose);
  });
}

/** An SSE response as the notification stream of its request: congested while its socket is full. */
function responseStream(res: ServerResponse): NotificationStream {
  const congested = () => res.writableNeedDrain && !res.destroyed;
  return {
    get congested() {
      return congested();
    },
    onceRoom(listener) {
      if (!congested()) {
        queueMicrotask(listener);
        return;
      }
      const room = () => {
        res.off('drain', room);
        res.off('close', room);
        listener();
      };
      res.on('drain', room);
      res.on('close', room);
    },
  };
}

/** Writes a web `Response` to `res`, following the socket's backpressure; stops when the client goes away. */
async function writeResponse(res: ServerResponse, response: Response, gone: AbortSignal): Promise<void> {
  const headers: Record<string, string> = {};
  for (const [name, value] of response.headers) headers[name] = value;
  res.writeHead(response.status, headers);
  if (!response.body) {
    res.end();
    return;
  }
  const closed = new Promise<void>((resolve) => gone.addEventListener('abort', () => resolve(), { once: true }));
  try {
    for await (const chunk of response.body) {
      if (gone.aborted) break;
      if (!res.write(chunk)) await Promise.race([new Promise((resolve) => res.once('drain', resolve)), closed]);
    }
  } catch {
    // The body failed midway (the stream was cancelled): end what was sent.
  }
  res.end();
}

/** Reads an admitted request's body, serves it, and writes the answer. */
async function serveAdmitted(
  endpoint: HttpEndpoint,
  caller: Caller,
  head: RequestHead,
  req: IncomingMessage,
  res: ServerResponse,
  url: string,
  parsedBody: unknown,
  options: { maxBody: number; maxPendingNotifications?: number },
): Promise<void> {
  const method = (req.method ?? 'GET').toUpperCase();
  let body: Uint8Array<ArrayBuffer> | string | undefined;
  /** The body decoded once, for the endpoint (which would otherwise read a clone of the Request's body). */
  let text: string | undefined;
  if (parsedBody !== undefined) body = text = JSON.stringify(parsedBody);
  else if (method !== 'GET' && method !== 'HEAD' && hasBody(req)) {
    if (awaitingContinue(req, res)) res.writeContinue();
    const read = await readBody(req, options.maxBody);
    if (read === undefined) return; // the client went away mid-body
    if (read === 'too large') {
      // The limit has been read already: close without reading more (peak stays within the limit).
      writeRefusal(req, res, 413, JSON_TYPE, tooLargeBody(options.maxBody), 0);
      return;
    }
    body = read as Uint8Array<ArrayBuffer>; // a Buffer's bytes; the Request copies them once
    text = read.toString('utf8');
  }
  /** Aborted when the client goes away before its answer; made only on the SDK's path (or for `ctx.http.req`). */
  let gone: AbortController | undefined;
  const goneSignal = () => {
    if (!gone) {
      const controller = new AbortController();
      gone = controller;
      if (res.closed || res.destroyed) controller.abort();
      else {
        res.once('close', () => {
          if (!res.writableFinished) controller.abort();
        });
      }
    }
    return gone.signal;
  };
  const toRequest = () => {
    const headers = headersOf(req);
    if (parsedBody !== undefined) {
      headers.delete('transfer-encoding');
      headers.delete('content-encoding');
      headers.set('content-length', String(Buffer.byteLength(body as string)));
    }
    return rememberClientAddress(
      new Request(url, { method, headers, signal: goneSignal(), ...(body !== undefined ? { body } : {}) }),
      caller.address,
    );
  };
  let response: Response;
  try {
    const checked = await endpoint.check(head, caller, method === 'POST' ? (text ?? '') : undefined);
    if ('response' in checked) response = checked.response;
    else {
      const notifications = () => new NotificationValve(responseStream(res), options.maxPendingNotifications);
      if (serveDirect(endpoint, head, caller, checked.body, res, toRequest, notifications)) return;
      const request = toRequest();
      bindNotificationValve(request, notifications);
      response = await endpoint.route(request, caller, checked.body);
    }
  } catch {
    response = jsonRpcErrorResponse(500, -32603, wireMessages.internal);
  }
  await writeResponse(res, response, goneSignal());
}

/**
 * Offers a checked request to the endpoint's direct path; true when it took it (and writes its
 * answer to `res` itself), false to serve it through the SDK.
 */
function serveDirect(
  endpoint: HttpEndpoint,
  head: RequestHead,
  caller: Caller,
  body: ParsedBody | undefined,
  res: ServerResponse,
  toRequest: () => Request,
  notifications: () => NotificationValve,
): boolean {
  const message = endpoint.directCandidate(head, body);
  if (!message || !endpoint.direct) return false;
  const exchange = new ModernExchange(message as ModernExchange['message'], caller.principal, res, toRequest, notifications);
  const answer = endpoint.direct(exchange);
  if (!answer) return false;
  // As the SDK's handler answers a failure of its own: 500, never a dropped request.
  answer.then(
    (result) => exchange.finish(result),
    () => exchange.fail(jsonRpcErrorBody(-32603, 'Internal server error', message.id ?? null)),
  );
  return true;
}

function badRequest(message: string): Response {
  return jsonRpcErrorResponse(400, -32600, message);
}

/**
 * A node:http handler for an endpoint that decides from the headers first (Host, Origin, size,
 * bearer token) and reads the body only for an admitted request (sending `100 Continue` then, when
 * the client waits for it), counting it against the size limit as it arrives. A refusal is
 * complete at once; the connection is then closed in stages. Responses follow the socket's
 * backpressure, and each SSE response is its request's notification stream (`NotificationValve`).
 */
export function toAdmittingNodeHandler(endpoint: HttpEndpoint, options: AdmittingNodeHandlerOptions) {
  const maxBody = options.maxRequestBodySize ?? DEFAULT_MAX_REQUEST_BODY_SIZE;
  const serveOptions = { maxBody, maxPendingNotifications: options.maxPendingNotifications };
  return async (req: IncomingMessage, res: ServerResponse, parsedBody?: unknown): Promise<void> => {
    // Refused in the same tick, before anything else: the client may still be sending the body.
    if (Number(req.headers['content-length'] ?? 0) > maxBody) {
      writeRefusal(req, res, 413, JSON_TYPE, tooLargeBody(maxBody));
      return;
    }
    const url = urlOf(req);
    if (!url) {
      const host = String(req.headers.host).slice(0, 100);
      await refuse(req, res, badRequest(wireMessages.badHost(host)));
      return;
    }
    const head = headOf(req, url);
    if (!head) {
      await refuse(req, res, badRequest(wireMessages.badMethod(req.method)));
      return;
    }
    let admitted: Awaited<ReturnType<HttpEndpoint['admit']>>;
    try {
      admitted = await endpoint.admit(head, req.socket.remoteAddress);
    } catch {
      // Nothing a client sends should get here; if it does, it gets an answer, not a dropped request.
      await refuse(req, res, jsonRpcErrorResponse(500, -32603, wireMessages.internal));
      return;
    }
    if ('response' in admitted) {
      await refuse(req, res, admitted.response);
      return;
    }
    await serveAdmitted(
      endpoint,
      admitted.caller,
      head,
      req,
      res,
      url,
      typeof parsedBody === 'function' ? undefined : parsedBody,
      serveOptions,
    );
  };
}
