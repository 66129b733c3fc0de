import type { ServerResponse } from 'node:http';
import { SSE_HEADERS } from '../wire/sse-format.js';
import type { AnswerSink } from './session-answer.js';

/**
 * A session answer's SSE response on node:http, its headers written at once as the SDK's session
 * transport sends them (no web Response is made).
 */
export class NodeAnswerSink implements AnswerSink {
  constructor(
    private readonly res: ServerResponse,
    sessionId: string,
  ) {
    res.writeHead(200, { ...SSE_HEADERS, 'mcp-session-id': sessionId });
  }

  get closed(): boolean {
    return this.res.writableEnded || this.res.destroyed;
  }

  put(text: string): void {
    if (!this.closed) this.res.write(text);
  }

  finish(text?: string): void {
    if (!this.closed) this.res.end(text);
  }
}
