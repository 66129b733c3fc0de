import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHead } from '../../auth/bearer-auth.js';
import { continueSent } from '../../seams/node-http.js';
import { textMemo } from './text-memo.js';

// Reading a node:http request: its URL, head and headers without a web `Request`, and its body
// counted against the size limit as it arrives.

/** True when the request says a body follows (Content-Length above 0, or chunked). */
export function hasBody(req: IncomingMessage): boolean {
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
}

/** True when the client sent `Expect: 100-continue` and is still waiting for the go-ahead. */
export function awaitingContinue(req: IncomingMessage, res: ServerResponse): boolean {
  // Node sends `100 Continue` itself unless the server listens for 'checkContinue' (listenHttp does).
  return /100-continue/i.test(req.headers.expect ?? '') && continueSent(res) !== true;
}

/** The request's URL, or undefined when its Host header cannot be one (`localhost:99999`, garbage). */
export function urlOf(req: IncomingMessage): string | undefined {
  const host = req.headers.host ?? 'localhost';
  // `new URL` would also take a Host carrying a path or credentials; a Host names a host and port only.
  if (/[\s/@?#\\]/.test(host)) return undefined;
  return hrefOf(`http://${host}${req.url ?? '/'}`);
}

/** The URL's `href`, parsed once per text while the same few come again. */
const hrefOf = textMemo((text) => {
  try {
    return new URL(text).href;
  } catch {
    return undefined;
  }
});

export function headersOf(req: IncomingMessage): Headers {
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
export function headOf(req: IncomingMessage, url: string): RequestHead | undefined {
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
export function readBody(req: IncomingMessage, max: number): Promise<Buffer | 'too large' | undefined> {
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
