import type { IncomingMessage, ServerResponse } from 'node:http';
import { DEFAULT_MAX_REQUEST_BODY_SIZE, type JSONRPCRequest } from '@modelcontextprotocol/server';
import type { RequestHead } from '../../auth/bearer-auth.js';
import { rememberClientAddress } from '../../context/client-address-of.js';
import { bindNotificationValve, NotificationValve } from '../../context/notification-valve.js';
import { wireMessages } from '../../messages/wire-messages.js';
import { ModernExchange } from '../modern/modern-exchange.js';
import { NodeAnswerSink } from '../sessions/node-session-answer.js';
import { SessionAnswer } from '../sessions/session-answer.js';
import { jsonRpcErrorResponse } from '../wire/json-rpc-error-response.js';
import type { HttpAdmission } from './http-admission.js';
import type { Caller } from './http-caller.js';
import type { HttpEndpoint, SessionCall } from './http-endpoint.js';
import type { ParsedBody } from './http-messages.js';
import { refuse, refuseTooLarge } from './node-refusal.js';
import { awaitingContinue, hasBody, headersOf, headOf, readBody, urlOf } from './node-request.js';
import { responseStream, writeResponse } from './node-response.js';
import { SessionRequestExtra } from './session-request-extra.js';

export interface AdmittingNodeHandlerOptions {
  /** Largest request body, answered 413 beyond (Content-Length or counted as it arrives). */
  maxRequestBodySize?: number;
  /** Most `ctx.progress`/`ctx.log` notifications kept per SSE response while the client is not reading. */
  maxPendingNotifications?: number;
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
      endpoint.admission.refused('too-large', wireMessages.bodyTooLarge(options.maxBody));
      refuseTooLarge(req, res, options.maxBody, 0);
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
    const request = new Request(url, { method, headers, signal: goneSignal(), ...(body !== undefined ? { body } : {}) });
    return rememberClientAddress(request, caller.address);
  };
  let response: Response;
  try {
    const checked = await endpoint.admission.check(head, caller, method === 'POST' ? (text ?? '') : undefined);
    if ('response' in checked) response = checked.response;
    else {
      const notifications = () => new NotificationValve(responseStream(res), options.maxPendingNotifications);
      if (serveDirect(endpoint, head, caller, checked.body, res, toRequest, notifications)) return;
      const sessionCall = endpoint.sessionCall(head, caller, checked.body);
      if (sessionCall) {
        const refused = await answerInSession(endpoint, sessionCall, caller, res, toRequest, notifications);
        if (!refused) return;
        response = refused;
      } else {
        const request = toRequest();
        bindNotificationValve(request, notifications);
        response = await endpoint.route(request, caller, checked.body);
      }
    }
  } catch {
    response = jsonRpcErrorResponse(500, -32603, wireMessages.internal);
  }
  await writeResponse(res, response, goneSignal());
}

/**
 * Offers a checked request to the request engine; true when it took it (and writes its answer to
 * `res` itself), false to serve it through the SDK.
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
  if (!message) return false;
  return endpoint.offerToEngine(new ModernExchange(message as ModernExchange['message'], caller.principal, res, toRequest, notifications));
}

/**
 * Hands a session request to its session's transport (the engine's front first, then the SDK's
 * request handling), answering on `res` itself: the answer and the notifications of the request
 * are routed to `res` by its id, and no web Request or Response is made unless a handler reads
 * `ctx.http.req`. The refusal to write instead, when the session
 * ended meanwhile or its store is away.
 */
async function answerInSession(
  endpoint: HttpEndpoint,
  call: SessionCall,
  caller: Caller,
  res: ServerResponse,
  toRequest: () => Request,
  notifications: () => NotificationValve,
): Promise<Response | undefined> {
  const opened = await endpoint.openSessionAnswer(call);
  if (opened instanceof Response) return opened;
  const { session, message } = call;
  const { transport } = session;
  const answer = new SessionAnswer(new NodeAnswerSink(res, transport.sessionId as string), opened.resumable);
  const messages = [message as JSONRPCRequest];
  if (!opened.resumable) res.once('close', () => transport.forgetGone(messages, answer));
  // Made once, when a handler first reads it, with the stream's valve bound to it (the SDK's request
  // handling finds its notifications' backpressure there).
  let request: Request | undefined;
  const requestOf = () => {
    if (!request) {
      request = toRequest();
      bindNotificationValve(request, notifications);
    }
    return request;
  };
  transport.serveOn(messages, answer, new SessionRequestExtra(caller.principal, requestOf, notifications));
  return undefined;
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
      endpoint.admission.refused('too-large', wireMessages.bodyTooLarge(maxBody));
      refuseTooLarge(req, res, maxBody);
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
    let admitted: Awaited<ReturnType<HttpAdmission['admit']>>;
    try {
      admitted = await endpoint.admission.admit(head, req.socket.remoteAddress);
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
