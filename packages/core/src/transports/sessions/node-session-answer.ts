import type { ServerResponse } from 'node:http';
import { SSE_HEADERS } from '../wire/sse-format.js';
import type { AnswerSink } from './session-answer.js';

/**
 * A session answer's response on node:http, written as the SDK's session transport writes it (no
 * web Response is made): an SSE stream, its headers sent with its first text, or, in a resumable
 * session, one JSON body (`json`) while nothing was sent.
 */
export class NodeAnswerSink implements AnswerSink {
  constructor(
    private readonly res: ServerResponse,
    private readonly sessionId: string,
  ) {}

  get closed(): boolean {
    return this.res.writableEnded || this.res.destroyed;
  }

  json(body: string): void {
    if (this.closed || this.res.headersSent) return;
    this.res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': this.sessionId });
    this.res.end(body);
  }

  put(text: string): void {
    if (this.closed) return;
    this.streaming();
    this.res.write(text);
  }

  finish(text?: string): void {
    if (this.closed) return;
    this.streaming();
    this.res.end(text);
  }

  private streaming(): void {
    if (!this.res.headersSent) this.res.writeHead(200, { ...SSE_HEADERS, 'mcp-session-id': this.sessionId });
  }
}
