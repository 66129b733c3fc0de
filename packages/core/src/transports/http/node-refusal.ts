import type { IncomingMessage, ServerResponse } from 'node:http';
import { wireMessages } from '../../messages/wire-messages.js';
import { jsonRpcErrorBody } from '../wire/json-rpc-error-response.js';
import { awaitingContinue, hasBody } from './node-request.js';

// Refusing a node:http request whose body may still be on its way: the answer is complete at
// once, then the connection is closed in stages.

/** How much of a refused body is read and dropped, so that a small one ends cleanly. */
const DRAIN_BYTES = 256 * 1024;
/**
 * How long a refused request's connection stays open once its answer is written, so the client
 * reads the answer before the close (RFC 9112 §9.6, "lingering close"). The answer is complete
 * from the first millisecond: this only delays freeing the socket.
 */
const LINGER_MS = 2_000;
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

export async function refuse(req: IncomingMessage, res: ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string> = {};
  for (const [name, value] of response.headers) headers[name] = value;
  writeRefusal(req, res, response.status, headers, await response.text());
}

const JSON_TYPE = Object.freeze({ 'content-type': 'application/json' });

/** 413 for a body past `maxBody`; `budget`: how much more of it is read and dropped (0 once the limit was read). */
export function refuseTooLarge(req: IncomingMessage, res: ServerResponse, maxBody: number, budget = DRAIN_BYTES): void {
  writeRefusal(req, res, 413, JSON_TYPE, jsonRpcErrorBody(-32000, wireMessages.bodyTooLarge(maxBody)), budget);
}
