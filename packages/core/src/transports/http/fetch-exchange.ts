import type { AuthInfo } from '@modelcontextprotocol/server';
import { type NotificationStream, NotificationValve } from '../../context/notification-valve.js';
import type { ModernCall } from '../../engine/exchange.js';
import { answerStatus, KEEP_ALIVE_COMMENT, KEEP_ALIVE_MS, SSE_HEADERS, sseFrame } from '../wire/sse-format.js';

const encoder = new TextEncoder();
/** Bytes of SSE events a streamed answer holds while its reader is not reading (then notifications wait in the valve). */
const STREAM_BUFFER_BYTES = 64 * 1024;

/**
 * A 2026-07-28 call that came through the web-standard `fetch` face, answered as the SDK's
 * per-request transport answers it: its `response` settles with one JSON body, or, once the call
 * sends a notification, with an SSE stream of its notifications and then its answer. While the
 * reader does not read, notifications wait in the call's valve, as on node:http.
 */
export class FetchExchange implements ModernCall {
  readonly response: Promise<Response>;
  private respond!: (response: Response) => void;
  private stream?: ReadableStreamDefaultController<Uint8Array<ArrayBuffer>>;
  private keepAlive?: NodeJS.Timeout;
  private ended = false;
  private valve?: NotificationValve;
  /** Listeners waiting for the reader to read again. */
  private rooms: (() => void)[] = [];

  constructor(
    readonly message: ModernCall['message'],
    readonly principal: AuthInfo | undefined,
    private readonly req: Request,
    private readonly maxPendingNotifications: number | undefined,
  ) {
    this.response = new Promise((resolve) => {
      this.respond = resolve;
    });
  }

  request = (): Request => this.req;

  onGone(listener: () => void): void {
    const { signal } = this.req;
    if (signal.aborted) listener();
    else signal.addEventListener('abort', () => listener(), { once: true });
  }

  readonly notifications = (): NotificationValve => {
    this.valve ??= new NotificationValve(this.streamView(), this.maxPendingNotifications);
    return this.valve;
  };

  notify(message: unknown): void {
    if (this.ended || this.req.signal.aborted) return;
    this.streaming().enqueue(encoder.encode(sseFrame(message)));
  }

  /** Ends with the answer (or, the client having gone, with nothing). */
  finish(answer: unknown): void {
    if (this.end()) return;
    if (this.stream) {
      if (answer !== undefined) this.stream.enqueue(encoder.encode(sseFrame(answer)));
      this.stream.close();
      return;
    }
    // Nobody reads an answer to a client that went away: an empty one settles the response.
    if (answer === undefined) this.respond(new Response(null, { status: 204 }));
    else
      this.respond(new Response(JSON.stringify(answer), { status: answerStatus(answer), headers: { 'content-type': 'application/json' } }));
  }

  /** Ends with 500 and `body` (a failure of the server, not of the call); ends a stream already begun. */
  fail(body: string): void {
    if (this.end()) return;
    if (this.stream) this.stream.close();
    else this.respond(new Response(body, { status: 500, headers: { 'content-type': 'application/json' } }));
  }

  /** Marks the exchange ended; true when it already was. */
  private end(): boolean {
    if (this.keepAlive) clearInterval(this.keepAlive);
    this.keepAlive = undefined;
    const was = this.ended;
    this.ended = true;
    if (!was) this.wake();
    return was;
  }

  /** The SSE stream, begun (and the response settled with it) by the first notification. */
  private streaming(): ReadableStreamDefaultController<Uint8Array<ArrayBuffer>> {
    if (this.stream) return this.stream;
    let controller!: ReadableStreamDefaultController<Uint8Array<ArrayBuffer>>;
    const body = new ReadableStream<Uint8Array<ArrayBuffer>>(
      {
        start: (c: ReadableStreamDefaultController<Uint8Array<ArrayBuffer>>) => {
          controller = c;
        },
        pull: () => this.wake(),
        cancel: () => {
          this.end();
        },
      },
      { highWaterMark: STREAM_BUFFER_BYTES, size: (chunk: Uint8Array<ArrayBuffer>) => chunk.byteLength },
    );
    this.stream = controller;
    this.respond(new Response(body, { status: 200, headers: SSE_HEADERS }));
    this.keepAlive = setInterval(() => {
      if (!this.ended) controller.enqueue(encoder.encode(KEEP_ALIVE_COMMENT));
    }, KEEP_ALIVE_MS);
    this.keepAlive.unref();
    return controller;
  }

  private wake(): void {
    const rooms = this.rooms;
    this.rooms = [];
    for (const room of rooms) room();
  }

  private streamView(): NotificationStream {
    const congested = () => !this.ended && (this.stream?.desiredSize ?? 1) <= 0;
    return {
      get congested() {
        return congested();
      },
      onceRoom: (listener) => {
        if (!congested()) queueMicrotask(listener);
        else this.rooms.push(listener);
      },
    };
  }
}
