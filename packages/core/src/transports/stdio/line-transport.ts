import { isUtf8 } from 'node:buffer';
import type { Readable, Writable } from 'node:stream';
import { type JSONRPCMessage, parseJSONRPCMessage, type RequestId, type Transport } from '@modelcontextprotocol/server';
import { IN_FLIGHT, InFlightTable } from '../../context/in-flight-table.js';
import { type NotificationStream, NotificationValve } from '../../context/notification-valve.js';
import { wireMessages } from '../../messages/wire-messages.js';
import type { ServerEvents } from '../../observability/server-events.js';
import {
  DEFAULT_MESSAGE_LIMITS,
  type MessageLimits,
  type PrescanResult,
  prescanJson,
  withinLimitsUnscanned,
} from '../../validation/json-prescan.js';
import { asPlainJsonRpcCall } from '../wire/json-rpc-shape.js';
import { LARGE_INPUT, nextTurn } from '../wire/large-input.js';

export const DEFAULT_MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

export interface LineTransportOptions {
  /** Nesting and size limits checked on each line before it is parsed. */
  messageLimits?: MessageLimits;
  /** Largest message (one line) accepted; a longer one is answered -32600 and skipped. Default 4 MiB. */
  maxMessageBytes?: number;
  /** Writes serialized lines (one tick's worth at a time); defaults to `output.write`. */
  write?: (lines: string) => boolean;
  /**
   * Most notifications (`ctx.progress`, `ctx.log`) kept waiting while the client does not read its
   * input; beyond, log lines are dropped. Progress is merged per token. Default 1,000.
   */
  maxPendingNotifications?: number;
  /** Called once when the input ends or the transport closes, whoever owns `onclose`. */
  onClosed?: () => void;
  /** Hears the messages refused for their size. */
  events?: ServerEvents;
}

const NEWLINE = 0x0a;
/** `parse`'s answer for a line that is not JSON (already rejected). */
const NOT_JSON = Symbol('not JSON');
/** `scan`'s answer for a line known to be within the limits without the pre-scan (its id not read). */
const UNSCANNED: PrescanResult = Object.freeze({});
/** How much of an over-long line is kept to read its id from (ids come first in practice). */
const HEAD_BYTES = 4_096;

/** The first `max` bytes of a line split over several buffers. */
function headOf(buffers: readonly Buffer[], max: number): Buffer {
  const parts: Buffer[] = [];
  let size = 0;
  for (const buffer of buffers) {
    if (size >= max) break;
    parts.push(buffer.subarray(0, max - size));
    size += parts[parts.length - 1]?.length ?? 0;
  }
  return Buffer.concat(parts);
}

/**
 * Newline-delimited JSON-RPC over a pair of streams. Unlike the SDK's stdio transport it answers
 * what it cannot read instead of dropping it: bad JSON gets `-32700`, a non-JSON-RPC value or a
 * batch gets `-32600` (echoing the id when there is one), an over-long line gets `-32600` with the
 * id read from its head and is skipped without buffering it, invalid UTF-8 gets `-32700` (never
 * silently replaced), a number id beyond the safe integer range gets `-32600` echoing the id as
 * written, and a request reusing the id of one still in flight gets `-32600`. Lines are split in
 * linear time whatever their size.
 */
export class LineTransport implements Transport, NotificationStream {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private pending: Buffer[] = [];
  /** Complete lines waiting while a large one is handled turn by turn (the input is paused meanwhile). */
  private backlog: Buffer[] = [];
  private draining = false;
  private pendingBytes = 0;
  private discarding = false;
  /**
   * Ids of the peer's requests not answered yet (JSON-RPC: unique among pending requests); the
   * string "1" apart from the number 1. Not a `Set`: once a mark-compact has moved a `Set`'s table
   * to the old generation, V8 allocates every table it rebuilds (64 calls arrive, 64 are answered)
   * there too, each linked to the next, so the old generation grew by about 70 bytes a call until
   * the next mark-compact (`InFlightTable`).
   */
  private readonly inFlight = new InFlightTable<typeof IN_FLIGHT>();
  private closed = false;
  private readonly maxBytes: number;
  private readonly messageLimits: Readonly<Required<MessageLimits>>;
  private readonly writeLine: (line: string) => boolean;
  /** Lines written this tick, sent in one write when the tick ends. */
  private batch = '';
  /** Callers waiting for the output to have room again. */
  private roomWaiters: Array<() => void> = [];
  /** This connection's notifications (`ctx.progress`, `ctx.log`), held back while the client is not reading. */
  readonly notifications: NotificationValve;
  private readonly onClosed?: () => void;
  private readonly events?: ServerEvents;

  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
    options: LineTransportOptions = {},
  ) {
    this.maxBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    this.messageLimits = { ...DEFAULT_MESSAGE_LIMITS, ...options.messageLimits };
    this.writeLine = options.write ?? ((line) => output.write(line));
    this.onClosed = options.onClosed;
    this.events = options.events;
    this.notifications = new NotificationValve(this, options.maxPendingNotifications);
  }

  async start(): Promise<void> {
    this.input.on('data', this.onData);
    this.input.on('error', this.onInputError);
    this.input.on('end', this.onEnd);
    this.input.on('close', this.onEnd);
    this.output.on('error', this.onOutputError);
    if (this.input.readableEnded || this.input.destroyed) setImmediate(this.onEnd);
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the stdio connection is closed'));
    if (!('method' in message) && 'id' in message && message.id !== undefined) this.answered(message.id);
    return this.queue(`${JSON.stringify(message)}\n`);
  }

  /**
   * Sends the response to `id` whose result is `resultJson`, already serialized: the same line
   * `send` writes for `{ result, jsonrpc: '2.0', id }`. Undefined when there is nothing to wait for.
   * A number id is written by `JSON.stringify`, never by a template or `String`: those go through
   * V8's number-to-string cache, which holds each new id's text until the id 16,384 later takes its
   * place, so every call's id survived the scavenges and was promoted (about 24 bytes a call).
   */
  sendResultText(id: RequestId, resultJson: string): Promise<void> | undefined {
    if (this.closed) return Promise.reject(new Error('the stdio connection is closed'));
    this.answered(id);
    return this.queued(`{"result":${resultJson},"jsonrpc":"2.0","id":${JSON.stringify(id)}}\n`);
  }

  private answered(id: RequestId): void {
    this.inFlight.delete(id);
    this.notifications.answered(id);
  }

  private queue(line: string): Promise<void> {
    return this.queued(line) ?? Promise.resolve();
  }

  /** Queues `line`; a promise of room only when stdout is congested. */
  private queued(line: string): Promise<void> | undefined {
    this.write(line);
    return this.congested ? new Promise((resolve) => this.onceRoom(resolve)) : undefined;
  }

  /**
   * True while the client is not reading fast enough: stdout holds more than its high-water mark
   * (or this tick's lines do). Notifications then wait (`NotificationValve`).
   */
  get congested(): boolean {
    return !this.closed && (this.output.writableNeedDrain || this.batch.length > this.output.writableHighWaterMark);
  }

  /** Calls `listener` once stdout has drained, or the transport has closed. */
  onceRoom(listener: () => void): void {
    if (!this.congested) {
      queueMicrotask(listener);
      return;
    }
    this.roomWaiters.push(listener);
    if (this.roomWaiters.length === 1) this.output.once('drain', this.onRoom);
  }

  private readonly onRoom = () => {
    const waiters = this.roomWaiters;
    this.roomWaiters = [];
    for (const waiter of waiters) waiter();
  };

  /** Queues `lines` for the one write at the end of this tick: many answers, one system call. */
  private write(lines: string): void {
    if (this.batch === '') process.nextTick(this.flushBatch);
    this.batch += lines;
  }

  private readonly flushBatch = () => {
    const lines = this.batch;
    this.batch = '';
    if (lines !== '' && !this.output.destroyed) this.writeLine(lines);
    // Congested by this tick's lines only, and stdout took them all: nobody will see a 'drain'.
    if (this.roomWaiters.length > 0 && !this.output.writableNeedDrain) {
      this.output.off('drain', this.onRoom);
      this.onRoom();
    }
  };

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.input.off('data', this.onData);
    this.input.off('error', this.onInputError);
    this.input.off('end', this.onEnd);
    this.input.off('close', this.onEnd);
    this.output.off('error', this.onOutputError);
    this.flushBatch();
    this.output.off('drain', this.onRoom);
    this.onRoom();
    this.pending = [];
    this.onclose?.();
    this.onClosed?.();
  }

  private readonly onEnd = () => {
    void this.close();
  };

  private readonly onInputError = (error: Error) => {
    this.onerror?.(error);
  };

  private readonly onOutputError = (error: Error) => {
    this.onerror?.(error);
    void this.close();
  };

  private readonly onData = (chunk: Buffer | string) => {
    let data = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    if (this.pending.length === 0 && !this.discarding && !this.draining) data = this.handleWholeLines(data);
    for (let newline = data.indexOf(NEWLINE); newline !== -1 && !this.closed; newline = data.indexOf(NEWLINE)) {
      const head = data.subarray(0, newline);
      data = data.subarray(newline + 1);
      if (this.discarding) {
        this.discarding = false;
        this.pending = [];
        this.pendingBytes = 0;
        continue;
      }
      const line = this.pending.length === 0 ? head : Buffer.concat([...this.pending, head]);
      this.pending = [];
      this.pendingBytes = 0;
      if (line.length > this.maxBytes) this.rejectTooLarge(this.idFromHead([line]));
      else if (this.draining || line.length >= LARGE_INPUT) this.holdBack(line);
      else this.handleLine(line);
    }
    if (data.length === 0 || this.discarding) return;
    this.pendingBytes += data.length;
    if (this.pendingBytes > this.maxBytes) {
      // Answer now and drop the rest of this line as it arrives: nothing large is ever buffered.
      const id = this.idFromHead([...this.pending, data]);
      this.pending = [];
      this.pendingBytes = 0;
      this.discarding = true;
      this.rejectTooLarge(id);
      return;
    }
    this.pending.push(Buffer.from(data));
  };

  /**
   * Handles the complete lines at the start of `data` from one decoded text, when they are valid
   * UTF-8 and too short together for any to be over-long or large: one check and one decoding per
   * chunk instead of a buffer, a check and a decoding per line. Returns what is left for the
   * line-by-line path (all of `data` when it does not qualify).
   */
  private handleWholeLines(data: Buffer): Buffer {
    const end = data.lastIndexOf(NEWLINE) + 1;
    if (end === 0 || end > this.maxBytes || end >= LARGE_INPUT) return data;
    const whole = data.subarray(0, end);
    if (!isUtf8(whole)) return data;
    const text = whole.toString('utf8');
    for (let start = 0, newline = text.indexOf('\n'); newline !== -1 && !this.closed; newline = text.indexOf('\n', start)) {
      const line = text.slice(start, newline).trim();
      start = newline + 1;
      if (line !== '') this.handleText(line);
    }
    return data.subarray(end);
  }

  /** The id of an over-long message, read from its first bytes, so its caller gets the answer. */
  private idFromHead(buffers: readonly Buffer[]): string | number | null {
    return prescanJson(headOf(buffers, HEAD_BYTES).toString('utf8'), this.messageLimits).id ?? null;
  }

  /** Answers an over-long message -32600, and tells the app's observers. */
  private rejectTooLarge(id: string | number | null): void {
    const message = wireMessages.lineTooLarge(this.maxBytes);
    this.events?.emit({ event: 'refused', reason: 'too-large', message, ...(id !== null ? { requestId: id } : {}) });
    this.reject(id, -32600, message);
  }

  /**
   * Holds `line` back until the large line before it has been handled, so the order holds; a large
   * line itself is handled a step a turn (`LARGE_INPUT`). Starts handling if nothing is.
   */
  private holdBack(line: Buffer): void {
    this.backlog.push(line);
    if (this.draining) return;
    this.draining = true;
    this.input.pause();
    // Not in this turn, which has just joined the line's chunks.
    setImmediate(() => void this.drain());
  }

  private async drain(): Promise<void> {
    try {
      for (let line = this.backlog.shift(); line && !this.closed; line = this.backlog.shift()) {
        if (line.length >= LARGE_INPUT) await this.handleLargeLine(line);
        else this.handleLine(line);
      }
    } finally {
      this.backlog = [];
      this.draining = false;
      if (!this.closed) this.input.resume();
    }
  }

  private handleLine(line: Buffer): void {
    const text = this.decode(line);
    if (text !== undefined) this.handleText(text);
  }

  /** Handles one line's text (trimmed, not empty). */
  private handleText(text: string): void {
    const scan = this.scan(text);
    if (!scan) return;
    const value = this.parse(text);
    if (value !== NOT_JSON) this.deliver(value, text, scan);
  }

  /** `handleLine`, each step a turn of the event loop apart. */
  private async handleLargeLine(line: Buffer): Promise<void> {
    const text = this.decode(line);
    if (text === undefined) return;
    await nextTurn();
    const scan = this.closed ? undefined : this.scan(text);
    if (!scan) return;
    await nextTurn();
    const value = this.closed ? NOT_JSON : this.parse(text);
    if (value === NOT_JSON) return;
    await nextTurn();
    if (!this.closed) this.deliver(value, text, scan);
  }

  /** The line as text, or undefined when it is empty or not UTF-8 (answered). */
  private decode(line: Buffer): string | undefined {
    if (!isUtf8(line)) {
      this.reject(null, -32700, wireMessages.notUtf8);
      return undefined;
    }
    const text = line.toString('utf8').trim();
    return text === '' ? undefined : text;
  }

  /**
   * The pre-scan of the text, or undefined when it breaks a message limit (answered); `UNSCANNED`
   * when the text is known to be within the limits without it (most lines).
   */
  private scan(text: string): PrescanResult | undefined {
    if (withinLimitsUnscanned(text, this.messageLimits)) return UNSCANNED;
    const scan = prescanJson(text, this.messageLimits);
    if (!scan.problem) return scan;
    this.reject(scan.id ?? null, -32600, wireMessages.invalidRequest(scan.problem));
    return undefined;
  }

  private parse(text: string): unknown {
    try {
      return JSON.parse(text);
    } catch {
      this.reject(null, -32700, wireMessages.notJson);
      return NOT_JSON;
    }
  }

  /** Checks a parsed line as a JSON-RPC message and hands it on. */
  private deliver(value: unknown, text: string, scan: PrescanResult): void {
    if (Array.isArray(value)) {
      this.reject(null, -32600, wireMessages.batchOnStdio);
      return;
    }
    const rawId = (value as { id?: unknown } | null)?.id;
    if (typeof rawId === 'number' && !Number.isSafeInteger(rawId)) {
      // JSON.parse has already rounded it: answer with the id exactly as written, never a neighbour's.
      const raw = (scan === UNSCANNED ? prescanJson(text, this.messageLimits) : scan).rawId ?? 'null';
      this.writeRaw(
        raw,
        -32600,
        `Invalid Request: the id ${raw} is not an integer between -(2^53-1) and 2^53-1; use a smaller integer or a string id`,
      );
      return;
    }
    let message: JSONRPCMessage;
    try {
      message = asPlainJsonRpcCall(value) ?? parseJSONRPCMessage(value);
    } catch {
      const id = (value as { id?: unknown } | null)?.id;
      const validId = typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null;
      // A malformed response to one of our requests has no one to answer.
      if (value && typeof value === 'object' && !('method' in value) && validId !== null) return;
      this.reject(validId, -32600, wireMessages.notJsonRpc);
      return;
    }
    if ('method' in message && 'id' in message) {
      if (this.inFlight.has(message.id)) {
        this.reject(message.id, -32600, wireMessages.idInFlight(message.id));
        return;
      }
      this.inFlight.set(message.id, IN_FLIGHT);
    }
    if ('method' in message && message.method === 'notifications/cancelled') {
      this.inFlight.delete((message.params as { requestId?: unknown } | undefined)?.requestId);
    }
    this.onmessage?.(message);
  }

  private reject(id: string | number | null, code: number, message: string): void {
    this.writeRaw(JSON.stringify(id), code, message);
  }

  /** An error response whose id is JSON text written as is (a token JSON numbers cannot hold). */
  private writeRaw(idJson: string, code: number, message: string): void {
    if (this.closed) return;
    this.write(`{"jsonrpc":"2.0","id":${idJson},"error":${JSON.stringify({ code, message })}}\n`);
  }
}
