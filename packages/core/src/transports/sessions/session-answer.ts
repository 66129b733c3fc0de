import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { KEEP_ALIVE_COMMENT, KEEP_ALIVE_MS, primingFrame, sseFrame } from '../wire/sse-format.js';
import type { OpenedStream } from './session-event-store.js';

/**
 * Where the answer to a request Armature took off the wire itself goes (a session POST answered
 * without the SDK's transport): its notifications and requests, then its answer.
 */
export interface AnswerStream {
  /** Settles once the message is written (stored first, in a resumable session). */
  write(message: JSONRPCMessage): Promise<void> | void;
  /** Settles once the answer is written and the response ended. */
  end(answer?: JSONRPCMessage): Promise<void> | void;
}

/**
 * The most bytes of an answer a resumable session sends as one JSON body (`SessionAnswer`) rather
 * than on a primed, stored stream: what the kernel takes in one write on a fresh TCP connection
 * (Linux's default send buffer, `net.ipv4.tcp_wmem`), so the body leaves whole. A larger answer
 * is stored, so that a client cut off halfway through it can resume.
 */
export const JSON_ANSWER_MAX_BYTES = 16 * 1024;

const encoder = new TextEncoder();

/** Whether `text` is at most `JSON_ANSWER_MAX_BYTES` in UTF-8 (its length alone decides most texts). */
function fitsJsonAnswer(text: string): boolean {
  if (text.length * 3 <= JSON_ANSWER_MAX_BYTES) return true;
  return text.length <= JSON_ANSWER_MAX_BYTES && encoder.encode(text).byteLength <= JSON_ANSWER_MAX_BYTES;
}

/** Where a resumable session's answer stream keeps its events, and whether it opens with a priming event. */
export interface ResumableAnswer {
  /**
   * Stores the stream's first messages (`first`, the answer last when it came already) in one step,
   * after its priming event when `primed`; their ids.
   */
  open(first: readonly JSONRPCMessage[]): Promise<OpenedStream>;
  /** Stores one later message of the stream; its event id. */
  store(message: JSONRPCMessage): Promise<string>;
  /** Whether the stream opens with a priming event (2025-11-25 on, SEP-1699). */
  readonly primed: boolean;
  /** The client's reconnection delay, sent with the priming event. */
  readonly retryMs?: number;
}

/**
 * Where an answer's SSE text goes: a node:http response (`NodeAnswerSink`, its SSE headers sent
 * with the first text) or a web `Response`'s body (`SessionEventStream`, its headers given at once;
 * `PendingSessionResponse`, which makes one with the first text).
 */
export interface AnswerSink {
  /**
   * Present when nothing was sent yet and the response can still be one JSON body: ends it with
   * `body` as `application/json` (as the SDK's session transport answers with `enableJsonResponse`).
   */
  json?(body: string): void;
  /** Writes `text`, unless the response ended or the client went away. */
  put(text: string): unknown;
  /** Ends the response after `text`, unless it ended or the client went away. */
  finish(text?: string): void;
  /** Whether the response ended or the client went away. */
  readonly closed: boolean;
}

/**
 * The SSE response to one request of a 2025-11-25 session that Armature answers itself, written as
 * the SDK's session transport writes it: its headers (given by the sink), its notifications and requests,
 * keep-alive comments while it runs, then its answer, which ends the response. In a resumable
 * session (an event store) it opens with the priming event, and each message is stored, then
 * written under its event id, in order; once the client went away (or the handler closed the
 * stream, `ctx.http.closeSSE`) messages are still stored for a resume, just not written.
 *
 * A resumable stream opens at the end of the turn of the event loop its request began in, or
 * earlier when the handler answers or closes it: what the handler sent by then is stored with the
 * priming event in one step of the store, and written with it. Nothing is written before it is
 * stored, so every event id the client sees can be resumed from.
 *
 * One request answered within that turn, with nothing sent before its answer, is not a stream: its
 * answer goes as one JSON body (up to `JSON_ANSWER_MAX_BYTES`), as the protocol lets a server
 * answer any POST, and nothing is stored. There is nothing to resume from a body that leaves in one
 * write, and an SSE stream would have to be primed and stored (SEP-1699) for nothing: a shared
 * session's quick call costs no store round trip, and the store holds only streams that ran.
 */
export class SessionAnswer implements AnswerStream {
  private readonly keepAlive: NodeJS.Timeout;
  /** The last message's store-then-write, which the next one follows (resumable only). */
  private tail: Promise<void> = Promise.resolve();
  /** Until a resumable stream opens: the messages it will open with. */
  private held?: JSONRPCMessage[];
  /** Until a resumable stream opens: what opens it at the end of this turn. */
  private opener?: NodeJS.Immediate;
  /** Opens a resumable stream now, not at the end of the turn. */
  private openNow?: () => void;
  private ending = false;
  /** Its one request was answered before the stream opened (not only ended by `detach`). */
  private answered = false;

  /**
   * @param unanswered the requests answered on the stream (more than one for a JSON-RPC batch): it
   *   ends with the last one's answer, the answers before it written as they come.
   */
  constructor(
    private readonly sink: AnswerSink,
    readonly resumable?: ResumableAnswer,
    private unanswered = 1,
  ) {
    this.keepAlive = setInterval(() => {
      if (sink.closed) clearInterval(this.keepAlive);
      else sink.put(KEEP_ALIVE_COMMENT);
    }, KEEP_ALIVE_MS);
    this.keepAlive.unref();
    if (resumable) {
      this.held = [];
      const due = new Promise<void>((resolve) => {
        this.openNow = resolve;
        this.opener = setImmediate(resolve);
      });
      this.tail = due.then(() => this.open(resumable));
    }
  }

  write(message: JSONRPCMessage): Promise<void> | void {
    if (!this.resumable) return this.put(sseFrame(message));
    if (this.held) {
      this.held.push(message);
      return this.tail;
    }
    return this.stored(message, (frame) => this.put(frame));
  }

  end(answer?: JSONRPCMessage): Promise<void> | void {
    if (answer !== undefined && --this.unanswered > 0) return this.write(answer);
    if (answer === undefined || !this.resumable) {
      // The session closed: a stream not opened yet opens no more.
      if (this.opener) clearImmediate(this.opener);
      this.held = undefined;
      return this.finish(answer === undefined ? undefined : sseFrame(answer));
    }
    if (this.held) {
      this.held.push(answer);
      this.ending = true;
      this.answered = this.held.length === 1;
      this.openNow?.();
      return this.tail;
    }
    return this.stored(answer, (frame) => this.finish(frame));
  }

  /** Ends the response, the request going on (its later messages are stored for a resume). */
  detach(): void {
    if (!this.held) {
      this.finish(undefined);
      return;
    }
    this.ending = true;
    this.openNow?.();
  }

  /**
   * Stores the priming event and the messages held so far in one step, then writes them (and ends
   * the response when it was answered or detached meanwhile). A store that fails does not cost the
   * client the messages: they are written without event ids. A request answered before it opened
   * is answered with one JSON body instead, when the sink still can and the answer is small.
   */
  private async open(resumable: ResumableAnswer): Promise<void> {
    const first = this.held;
    if (!first) return;
    this.held = undefined;
    clearImmediate(this.opener);
    if (this.answered && this.sink.json) {
      const body = JSON.stringify(first[0]);
      if (fitsJsonAnswer(body)) {
        clearInterval(this.keepAlive);
        this.sink.json(body);
        return;
      }
    }
    let opened: OpenedStream | undefined;
    try {
      opened = await resumable.open(first);
    } catch {
      opened = undefined;
    }
    let text = opened?.primingId === undefined ? '' : primingFrame(opened.primingId, resumable.retryMs);
    for (const [i, message] of first.entries()) text += sseFrame(message, opened?.eventIds[i]);
    if (this.ending) this.finish(text);
    else if (text) this.put(text);
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
    this.sink.put(text);
  }

  private finish(text: string | undefined): void {
    clearInterval(this.keepAlive);
    this.sink.finish(text);
  }
}
