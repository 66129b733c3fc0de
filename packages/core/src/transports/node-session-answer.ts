import type { ServerResponse } from 'node:http';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import type { AnswerStream } from './session-transport.js';
import { KEEP_ALIVE_COMMENT, KEEP_ALIVE_MS, SSE_HEADERS, sseFrame } from './sse-format.js';

/**
 * The SSE response to one request of a 2025-11-25 session that Armature answers itself, written as
 * the SDK's session transport writes it (without an event store: no event ids, no priming event):
 * its headers at once, its notifications and requests, keep-alive comments while it runs, then its
 * answer, which ends the response. A client that went away is written nothing more.
 */
export class NodeSessionAnswer implements AnswerStream {
  private readonly keepAlive: NodeJS.Timeout;

  constructor(
    private readonly res: ServerResponse,
    sessionId: string,
  ) {
    res.writeHead(200, { ...SSE_HEADERS, 'mcp-session-id': sessionId });
    this.keepAlive = setInterval(() => this.write(KEEP_ALIVE_COMMENT), KEEP_ALIVE_MS);
    this.keepAlive.unref();
    res.once('close', () => clearInterval(this.keepAlive));
  }

  write(message: JSONRPCMessage | string): void {
    if (this.res.writableEnded || this.res.destroyed) return;
    this.res.write(typeof message === 'string' ? message : sseFrame(message));
  }

  end(answer?: JSONRPCMessage): void {
    clearInterval(this.keepAlive);
    if (this.res.writableEnded || this.res.destroyed) return;
    this.res.end(answer === undefined ? undefined : sseFrame(answer));
  }
}
