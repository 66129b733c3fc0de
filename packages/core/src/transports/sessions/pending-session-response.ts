import type { AnswerSink } from './session-answer.js';
import { SessionEventStream } from './session-event-stream.js';

/**
 * The web `Response` to one request of a resumable session that Armature answers itself through
 * the fetch face, settled by the answer's first step (`SessionAnswer`): one JSON body (`json`),
 * or the SSE stream (`SessionEventStream`) everything after goes to.
 */
export class PendingSessionResponse implements AnswerSink {
  readonly response: Promise<Response>;
  private respond!: (response: Response) => void;
  private stream?: SessionEventStream;
  private answered = false;

  /** @param onEnd as `SessionEventStream`'s, once a stream was begun. */
  constructor(
    private readonly sessionId: string,
    private readonly onEnd: () => void,
  ) {
    this.response = new Promise((resolve) => {
      this.respond = resolve;
    });
  }

  get closed(): boolean {
    return this.answered || (this.stream?.closed ?? false);
  }

  json(body: string): void {
    if (this.closed || this.stream) return;
    this.answered = true;
    this.respond(new Response(body, { status: 200, headers: { 'content-type': 'application/json', 'mcp-session-id': this.sessionId } }));
  }

  put(text: string): boolean {
    return this.streaming().put(text);
  }

  finish(text?: string): void {
    this.streaming().finish(text);
  }

  private streaming(): SessionEventStream {
    if (!this.stream) {
      this.stream = new SessionEventStream(this.sessionId, this.onEnd);
      this.respond(this.stream.response);
    }
    return this.stream;
  }
}
