import {
  type HandleRequestOptions,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type ScopeChallengeHandler,
  type McpServer as SdkMcpServer,
  type Server,
  type Transport,
  type TransportSendOptions,
  WebStandardStreamableHTTPServerTransport,
  type WebStandardStreamableHTTPServerTransportOptions,
} from '@modelcontextprotocol/server';
import { IN_FLIGHT, InFlightTable } from '../../context/in-flight-table.js';
import type { FrontedMessageExtra } from '../../engine/session-front.js';
import { wireMessages } from '../../messages/wire-messages.js';
import { forwardCallbacks } from '../../seams/sdk-callbacks.js';
import type { InitializedState, SessionState } from '../../seams/sdk-session-state.js';
import { jsonRpcErrorResponse } from '../wire/json-rpc-error-response.js';
import { idKey } from '../wire/json-rpc-shape.js';
import { PendingSessionResponse } from './pending-session-response.js';
import { type AnswerStream, type ResumableAnswer, SessionAnswer } from './session-answer.js';
import { GET_STREAM, type SessionEventStore } from './session-event-store.js';
import { SessionEventStream } from './session-event-stream.js';

/**
 * Armature's transport of one 2025-11-25 session: the one the session's SDK server connects to. It
 * knows which of the client's request ids are still unanswered and which of its own requests
 * (elicitation, sampling, roots) still await the client's answer; it writes the answers of the
 * requests Armature took off the wire itself to their streams, and, when several instances share
 * the session, sends messages that belong on no request's stream through the relay (stored once,
 * written by whichever instance holds the client's GET stream). It holds the client's GET stream,
 * and replays a stream the client resumes (`Last-Event-ID`) from the session's event store. The
 * HTTP exchanges it does not frame itself (what the SDK's checks are to refuse, the resume of a
 * stream the SDK still answers, everything when the framing self-check failed, the handshake when
 * the session-state one did) are framed by the SDK's transport it holds, through that transport's
 * public methods only.
 */
export class SessionTransport implements Transport {
  /**
   * The client's request ids not answered yet, by `idKey`. Not a `Set`, nor `answerStreams` a
   * `Map`: a table rebuilt old keeps the later ones, and what they hold, through the scavenges
   * (`InFlightTable`).
   */
  readonly inFlight = new InFlightTable<typeof IN_FLIGHT>();
  /** Ids of requests this server sent the client that are still unanswered. */
  readonly awaiting = new Set<string>();
  /** Run when the success response to a client's request leaves (keyed by `idKey`). */
  readonly onAnswered = new Map<string, () => Promise<void>>();
  readonly events?: SessionEventStore;
  /** Set when instances share sessions: where standalone messages go. */
  relay?: (message: JSONRPCMessage) => Promise<void>;
  /** The streams of the client requests Armature answers itself, by `idKey`. */
  readonly answerStreams = new InFlightTable<AnswerStream>();
  onmessage?: Transport['onmessage'];
  onclose?: Transport['onclose'];
  onerror?: Transport['onerror'];
  /** The SDK's transport, framing the HTTP exchanges Armature does not frame itself. */
  private readonly framing: WebStandardStreamableHTTPServerTransport;
  /** The client's standalone (GET) stream, when Armature holds it. */
  private standalone?: SessionEventStream;
  private closed = false;

  constructor(options: WebStandardStreamableHTTPServerTransportOptions & { eventStore?: SessionEventStore }) {
    this.framing = new WebStandardStreamableHTTPServerTransport(options);
    this.events = options.eventStore;
    // However the session closes (the server closed, DELETE), the streams Armature answers on end with it.
    forwardCallbacks(this.framing, this, () => {
      this.closed = true;
      for (const stream of this.answerStreams.values()) stream.end();
      this.answerStreams.clear();
      this.standalone?.close();
    });
  }

  get sessionId(): string | undefined {
    return this.framing.sessionId;
  }

  start(): Promise<void> {
    return this.framing.start();
  }

  /** Passed on as the SDK server passes them when it connects. */
  setSupportedProtocolVersions(versions: string[]): void {
    this.framing.setSupportedProtocolVersions(versions);
  }

  setScopeChallengeResolver(resolver: ScopeChallengeHandler): void {
    this.framing.setScopeChallengeResolver(resolver);
  }

  /** A request of the session Armature does not answer itself, framed by the SDK's transport. */
  handleRequest(request: Request, options?: HandleRequestOptions): Promise<Response> {
    return this.framing.handleRequest(request, options);
  }

  /** The session's server and this transport as after the client's `initialize` (a session re-created here). */
  restore(writer: SessionState, server: Server, sessionId: string, state: InitializedState): void {
    writer.restore(server, this.framing, sessionId, state);
  }

  /** This transport as after it took the client's `initialize` (which Armature answers itself). */
  initialized(writer: SessionState, sessionId: string): void {
    writer.initialized(this.framing, sessionId);
  }

  /**
   * Hands the session's server what a POST brought (one request; a batch's requests, notifications
   * and responses), the requests answered by Armature on `answer`: their answers and the messages
   * related to them go there. `extra` is what the SDK's transport passes with each message; on a
   * primed stream the handler may close it, or the standalone one, as there.
   */
  serveOn(messages: readonly JSONRPCMessage[], answer: SessionAnswer, extra: FrontedMessageExtra & StreamControls): void {
    for (const message of messages) if (isRequest(message)) this.answerStreams.set(idKey(message.id), answer);
    if (answer.resumable?.primed) {
      extra.closeSSEStream = () => answer.detach();
      extra.closeStandaloneSSEStream = () => this.closeStandaloneSSEStream();
    }
    for (const message of messages) this.onmessage?.(message, extra);
  }

  /**
   * Serves what a POST brought (`serveOn`, `requests` of its messages being requests) on an answer
   * made as a web `Response` (the fetch face's calls, every `initialize`, batches): that response,
   * an SSE stream, or, for a request (not a batch) of a resumable session answered at once, one
   * JSON body.
   */
  serveOnResponse(
    messages: readonly JSONRPCMessage[],
    requests: number,
    resumable: ResumableAnswer | undefined,
    extra: FrontedMessageExtra & StreamControls,
    batch = false,
  ): Response | Promise<Response> {
    let answer: SessionAnswer | undefined;
    const onEnd = () => {
      if (answer) this.forgetGone(messages, answer);
    };
    const sessionId = this.sessionId as string;
    const sink = resumable && !batch ? new PendingSessionResponse(sessionId, onEnd) : new SessionEventStream(sessionId, onEnd);
    answer = new SessionAnswer(sink, resumable, requests);
    this.serveOn(messages, answer, extra);
    return sink.response;
  }

  /**
   * Forgets the stream of the requests among `messages` once its client went away, as the SDK's
   * transport forgets a cancelled response stream (a resumable stream is kept: its messages are
   * still stored for a resume).
   */
  forgetGone(messages: readonly JSONRPCMessage[], answer: SessionAnswer): void {
    if (answer.resumable) return;
    for (const message of messages) {
      if (!isRequest(message)) continue;
      const key = idKey(message.id);
      if (this.answerStreams.get(key) === answer) this.answerStreams.delete(key);
    }
  }

  closeStandaloneSSEStream(): void {
    if (this.standalone) this.standalone.close();
    else this.framing.closeStandaloneSSEStream();
  }

  /**
   * A GET of the session that the SDK's transport would accept (the table checked its session,
   * revision and Accept header), answered as that transport answers it: with an event store and a
   * `Last-Event-ID`, the resumed stream's events; otherwise the session's standalone stream, one
   * at a time.
   */
  openStream(request: Request): Promise<Response> | Response {
    if (this.closed) return jsonRpcErrorResponse(404, -32001, wireMessages.sessionNotFound);
    const lastEventId = request.headers.get('last-event-id');
    if (this.events && lastEventId) return this.resume(request, this.events, lastEventId);
    if (this.standalone) return this.refused(409, wireMessages.standaloneStreamTaken);
    const stream = this.standaloneStream();
    this.standalone = stream;
    stream.keepOpen();
    return stream.response;
  }

  /**
   * The events after `lastEventId` on its stream. A resumed standalone stream becomes the session's
   * (the one open before ends); another stream ends after its events (a request Armature answers
   * is followed by the store until answered); a stream the SDK's transport still answers is its
   * to resume.
   */
  private async resume(request: Request, events: SessionEventStore, lastEventId: string): Promise<Response> {
    try {
      const streamId = await events.getStreamIdForEventId(lastEventId);
      if (streamId === undefined) return this.refused(400, wireMessages.unknownEventId);
      if (events.framesBySdk(streamId)) return this.framing.handleRequest(request);
      if (streamId === GET_STREAM && this.standalone) return this.refused(409, wireMessages.resumedStreamTaken);
      const stream = this.standaloneStream();
      const resumed = await events.replayEventsAfter(lastEventId, {
        send: async (eventId, message) => {
          stream.replayed.add(eventId);
          if (!stream.write(message, eventId)) stream.close();
        },
      });
      if (this.closed || stream.closed) {
        stream.close();
        return jsonRpcErrorResponse(404, -32001, wireMessages.sessionNotFound);
      }
      if (resumed !== GET_STREAM) {
        stream.close();
        return stream.response;
      }
      this.standalone?.close();
      this.standalone = stream;
      stream.keepOpen();
      return stream.response;
    } catch (error) {
      this.onerror?.(error as Error);
      return jsonRpcErrorResponse(500, -32000, wireMessages.replayFailed);
    }
  }

  /** A stream that is forgotten as the session's standalone one when it ends. */
  private standaloneStream(): SessionEventStream {
    const stream = new SessionEventStream(this.sessionId as string, () => {
      if (this.standalone === stream) this.standalone = undefined;
    });
    return stream;
  }

  /** A GET refused as the SDK's transport refuses it (and reports it to the server's `onerror`). */
  private refused(status: number, message: string): Response {
    this.onerror?.(new Error(message));
    return jsonRpcErrorResponse(status, -32000, message);
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const isResponse = !('method' in message) && 'id' in message;
    if ('method' in message && 'id' in message) this.awaiting.add(idKey(message.id));
    // The server gave up on one of its requests (timeout, abort): no answer is awaited any more.
    if ('method' in message && message.method === 'notifications/cancelled') this.awaiting.delete(idKey(message.params?.requestId));
    if (!isResponse && options?.relatedRequestId === undefined) {
      if (this.relay) return this.relay(message);
      if (this.standalone) return this.toStandalone(message);
    }
    const sent = isResponse ? await this.beforeAnswer(message) : message;
    const related = isResponse ? (message as { id: unknown }).id : options?.relatedRequestId;
    const stream = related === undefined ? undefined : this.answerStreams.get(idKey(related));
    try {
      if (!stream) await this.framing.send(sent, options);
      else if (!isResponse) await stream.write(sent);
      else {
        this.answerStreams.delete(idKey(related));
        await stream.end(sent);
      }
    } finally {
      // Forgotten only once the response is on its stream, so a reused id cannot take the stream over first.
      if (isResponse) this.inFlight.delete(idKey((message as { id: unknown }).id));
    }
  }

  /** Ends the session's streams, Armature's and the SDK's, and tells the server it closed. */
  close(): Promise<void> {
    return this.framing.close();
  }

  /** Writes an event another instance stored to this instance's GET stream, when it holds it. */
  async writeRelayed(eventId: string, message: JSONRPCMessage): Promise<void> {
    if (this.standalone) {
      this.written(message, eventId);
      return;
    }
    this.events?.adopt(eventId);
    await this.framing.send(message);
  }

  /** A message on the standalone stream Armature holds: stored first in a resumable session. */
  private async toStandalone(message: JSONRPCMessage): Promise<void> {
    const eventId = this.events ? await this.events.storeEvent(GET_STREAM, message) : undefined;
    this.written(message, eventId);
  }

  /** Writes a standalone message to the GET stream held now, unless a replay on it wrote it already. */
  private written(message: JSONRPCMessage, eventId: string | undefined): void {
    const stream = this.standalone;
    if (stream && (eventId === undefined || !stream.replayed.has(eventId))) stream.write(message, eventId);
  }

  /**
   * Records what a successful request changed before the client can see the success (and act on
   * it through another instance). When that fails the client gets the failure's message instead.
   */
  private async beforeAnswer(message: JSONRPCMessage): Promise<JSONRPCMessage> {
    const id = (message as { id: string | number }).id;
    const effect = this.onAnswered.get(idKey(id));
    if (!effect) return message;
    this.onAnswered.delete(idKey(id));
    if (!('result' in message)) return message;
    try {
      await effect();
      return message;
    } catch (error) {
      return { jsonrpc: '2.0', id, error: { code: -32000, message: (error as Error).message } };
    }
  }
}

/** The stream controls the SDK's transport passes with a request on a primed (resumable) stream. */
export interface StreamControls {
  closeSSEStream?: () => void;
  closeStandaloneSSEStream?: () => void;
}

function isRequest(message: JSONRPCMessage): message is JSONRPCRequest {
  return 'method' in message && 'id' in message;
}

export interface Session {
  readonly transport: SessionTransport;
  readonly server: SdkMcpServer;
  /** Who opened the session (with auth on): another caller may not use it. */
  readonly owner?: string;
  readonly client?: string;
  readonly events?: SessionEventStore;
  readonly opened: number;
  /** Counted against its client's cap here (opened on this instance, not re-created from the store). */
  readonly counted: boolean;
  initialized: boolean;
  lastSeen: number;
  /** When this instance last pushed the shared record's expiry back (instances sharing sessions). */
  refreshed?: number;
  /** The level the client set with `logging/setLevel` (tracked when instances share sessions). */
  logLevel?: string;
}
