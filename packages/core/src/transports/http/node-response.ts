import type { ServerResponse } from 'node:http';
import type { NotificationStream } from '../../context/notification-valve.js';

// Writing to a node:http response: a web `Response` following the socket's backpressure, and an
// SSE response as its request's notification stream.

/** An SSE response as the notification stream of its request: congested while its socket is full. */
export function responseStream(res: ServerResponse): NotificationStream {
  return new ResponseStream(res);
}

/**
 * `congested` is a getter of the class, not of an object literal: V8 gives each getter a literal
 * defines an accessor pair of its own, always in the old generation, which kept its closure and
 * the response alive through the scavenges until the next mark-compact.
 */
class ResponseStream implements NotificationStream {
  readonly #res: ServerResponse;

  constructor(res: ServerResponse) {
    this.#res = res;
  }

  get congested(): boolean {
    return this.#res.writableNeedDrain && !this.#res.destroyed;
  }

  onceRoom(listener: () => void): void {
    if (!this.congested) {
      queueMicrotask(listener);
      return;
    }
    const res = this.#res;
    const room = () => {
      res.off('drain', room);
      res.off('close', room);
      listener();
    };
    res.on('drain', room);
    res.on('close', room);
  }
}

/** Writes a web `Response` to `res`, following the socket's backpressure; stops when the client goes away. */
export async function writeResponse(res: ServerResponse, response: Response, gone: AbortSignal): Promise<void> {
  const headers: Record<string, string> = {};
  for (const [name, value] of response.headers) headers[name] = value;
  res.writeHead(response.status, headers);
  if (!response.body) {
    res.end();
    return;
  }
  // An event stream's headers go at once: the client knows its stream is open before the first event
  // (a GET stream may wait long for one).
  if (headers['content-type'] === 'text/event-stream') res.flushHeaders();
  const reader = response.body.getReader();
  // A client that went away cancels the body at once: an open event stream (a session's GET stream)
  // is given up then, not at its next event, so the client's reconnection finds it gone.
  const cancel = () => void reader.cancel().catch(() => undefined);
  const closed = new Promise<void>((resolve) => gone.addEventListener('abort', () => resolve(), { once: true }));
  gone.addEventListener('abort', cancel, { once: true });
  if (gone.aborted) cancel();
  try {
    for (let read = await reader.read(); !read.done && !gone.aborted; read = await reader.read()) {
      if (!res.write(read.value)) await Promise.race([new Promise((resolve) => res.once('drain', resolve)), closed]);
    }
  } catch {
    // The body failed midway (the stream was cancelled): end what was sent.
  } finally {
    gone.removeEventListener('abort', cancel);
  }
  res.end();
}
