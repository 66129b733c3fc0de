import { KEEP_ALIVE_COMMENT, KEEP_ALIVE_MS, SSE_HEADERS, sseFrame } from '../wire/sse-format.js';
import type { AnswerSink } from './session-answer.js';

const encoder = new TextEncoder();

/**
 * An SSE response of a 2025-11-25 session: the standalone (GET) stream, a stream resumed with
 * `Last-Event-ID`, or the answer to a POST made as a web `Response` (a `SessionAnswer`'s sink: the
 * fetch face's, and every `initialize`'s), written as the SDK's session transport writes them (its
 * headers, its events, keep-alive comments once open). A web `Response`, so that the node:http and
 * the fetch faces serve it alike.
 */
export class SessionEventStream implements AnswerSink {
  readonly response: Response;
  /** The ids of the events replayed on it: a message stored meanwhile is not written twice. */
  readonly replayed = new Set<string>();
  private controller?: ReadableStreamDefaultController<Uint8Array>;
  private keepAlive?: NodeJS.Timeout;
  private ended = false;

  /** @param onEnd runs once when the stream ends, whether the client went away or it was closed here. */
  constructor(
    sessionId: string,
    private readonly onEnd: () => void,
  ) {
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.controller = controller;
      },
      cancel: () => this.end(),
    });
    this.response = new Response(body, { headers: { ...SSE_HEADERS, 'mcp-session-id': sessionId } });
  }

  /** Whether the client went away or the stream was closed. */
  get closed(): boolean {
    return this.ended;
  }

  /** Writes one message, with its event id in a resumable session; false when the stream is closed. */
  write(message: unknown, eventId?: string): boolean {
    return this.put(sseFrame(message, eventId));
  }

  /** Keeps the idle stream open through proxies with a comment every `KEEP_ALIVE_MS`. */
  keepOpen(): void {
    if (this.ended || this.keepAlive) return;
    this.keepAlive = setInterval(() => this.put(KEEP_ALIVE_COMMENT), KEEP_ALIVE_MS);
    this.keepAlive.unref();
  }

  /** Ends the response after `text` (a POST stream's answer). */
  finish(text?: string): void {
    if (text) this.put(text);
    this.close();
  }

  /** Ends the response (the client resumes when it wants more). */
  close(): void {
    if (this.ended) return;
    this.end();
    try {
      this.controller?.close();
    } catch {
      // Already closed by the client.
    }
  }

  put(text: string): boolean {
    if (this.ended || !this.controller) return false;
    try {
      this.controller.enqueue(encoder.encode(text));
      return true;
    } catch {
      this.end();
      return false;
    }
  }

  private end(): void {
    if (this.ended) return;
    this.ended = true;
    clearInterval(this.keepAlive);
    this.onEnd();
  }
}
