import type { ServerResponse } from 'node:http';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { KEEP_ALIVE_COMMENT, KEEP_ALIVE_MS, primingFrame, SSE_HEADERS, sseFrame } from '../wire/sse-format.js';
import type { AnswerStream } from './session-transport.js';

/** Where a resumable session's answer stream keeps its events, and how its first event looked. */
export interface ResumableAnswer {
  /** Stores one message of the stream; its event id. */
  store(message: JSONRPCMessage): Promise<string>;
  /** The priming event's id (none when the revision has no priming events). */
  readonly primingId?: string;
  /** The client's reconnection delay, sent with the priming event. */
  readonly retryMs?: number;
}

/**
 * The SSE response to one request of a 2025-11-25 session that Armature answers itself, written as
 * the SDK's session transport writes it: its headers at once, its notifications and requests,
 * keep-alive comments while it runs, then its answer, which ends the response. In a resumable
 * session (an event store) it opens with the priming event, and each message is stored, then
 * written under its event id, in order; once the client went away (or the handler closed the
 * stream, `ctx.http.closeSSE`) messages are still stored for a resume, just not written.
 */
export class NodeSessionAnswer implements AnswerStream {
  private readonly keepAlive: NodeJS.Timeout;
  /** The last message's store-then-write, which the next one follows (resumable only). */
  private tail: Promise<void> = Promise.resolve();

  constructor(
    private readonly res: ServerResponse,
    sessionId: string,
    private readonly resumable?: ResumableAnswer,
  ) {
    res.writeHead(200, { ...SSE_HEADERS, 'mcp-session-id': sessionId });
    if (resumable?.primingId !== undefined) res.write(primingFrame(resumable.primingId, resumable.retryMs));
    this.keepAlive = setInterval(() => this.put(KEEP_ALIVE_COMMENT), KEEP_ALIVE_MS);
    this.keepAlive.unref();
    res.once('close', () => clearInterval(this.keepAlive));
  }

  write(message: JSONRPCMessage): Promise<void> | void {
    if (!this.resumable) return this.put(sseFrame(message));
    return this.stored(message, (frame) => this.put(frame));
  }

  end(answer?: JSONRPCMessage): Promise<void> | void {
    if (answer === undefined || !this.resumable) return this.finish(answer === undefined ? undefined : sseFrame(answer));
    return this.stored(answer, (frame) => this.finish(frame));
  }

  /** Ends the response, the request going on (its later messages are stored for a resume). */
  detach(): void {
    this.finish(undefined);
  }

  /**
   * Stores `message` after the messages before it, then hands its frame to `out`. A store that
   * fails does not cost the client the message: it is written without an event id.
   */
  private stored(message: JSONRPCMessage, out: (frame: string) => void): Promise<void> {
    const store = (this.resumable as ResumableAnswer).store;
    this.tail = this.tail.then(() =>
      store(message).then(
        (eventId) => out(sseFrame(message, eventId)),
        () => out(sseFrame(message)),
      ),
    );
    return this.tail;
  }

  private put(text: string): void {
    if (this.res.writableEnded || this.res.destroyed) return;
    this.res.write(text);
  }

  private finish(text: string | undefined): void {
    clearInterval(this.keepAlive);
    if (this.res.writableEnded || this.res.destroyed) return;
    this.res.end(text);
  }
}
