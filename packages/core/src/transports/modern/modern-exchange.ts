import type { ServerResponse } from 'node:http';
import type { AuthInfo } from '@modelcontextprotocol/server';
import type { NotificationValve } from '../../context/notification-valve.js';
import type { ModernCall } from '../../engine/exchange.js';
import { answerStatus, KEEP_ALIVE_COMMENT, KEEP_ALIVE_MS, SSE_HEADERS, sseFrame } from '../wire/sse-format.js';

/**
 * A 2026-07-28 call answered on a node:http response as the SDK's per-request transport answers
 * it: one JSON body, or, once the call sends a notification, an SSE stream of its notifications
 * and then its answer (with the SDK's keep-alive comments while it runs).
 */
export class ModernExchange implements ModernCall {
  private gone = false;
  private goneListener?: () => void;
  private keepAlive?: NodeJS.Timeout;

  constructor(
    readonly message: ModernCall['message'],
    readonly principal: AuthInfo | undefined,
    private readonly res: ServerResponse,
    readonly request: () => Request,
    readonly notifications: () => NotificationValve,
  ) {
    res.once('close', () => {
      this.stopKeepAlive();
      if (res.writableFinished) return;
      this.gone = true;
      this.goneListener?.();
    });
  }

  onGone(listener: () => void): void {
    if (this.gone) listener();
    else this.goneListener = listener;
  }

  notify(message: unknown): void {
    if (this.gone || this.res.writableEnded) return;
    if (!this.res.headersSent) {
      this.res.writeHead(200, SSE_HEADERS);
      this.keepAlive = setInterval(() => this.res.write(KEEP_ALIVE_COMMENT), KEEP_ALIVE_MS);
      this.keepAlive.unref();
    }
    this.res.write(sseFrame(message));
  }

  /** Writes the answer (or ends the stream when there is none). */
  finish(answer: unknown): void {
    this.stopKeepAlive();
    if (this.res.writableEnded) return;
    if (this.res.headersSent) {
      this.res.end(answer === undefined ? undefined : sseFrame(answer));
      return;
    }
    if (answer === undefined) {
      this.res.destroy();
      return;
    }
    const body = JSON.stringify(answer);
    this.res.writeHead(answerStatus(answer), { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
  }

  /** Answers 500 with `body` (a failure of the server, not of the call); ends a stream already begun. */
  fail(body: string): void {
    this.stopKeepAlive();
    if (this.res.writableEnded) return;
    if (this.res.headersSent) this.res.end();
    else this.res.writeHead(500, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
  }

  private stopKeepAlive(): void {
    if (this.keepAlive) clearInterval(this.keepAlive);
    this.keepAlive = undefined;
  }
}
