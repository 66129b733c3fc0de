import type { Readable, Writable } from 'node:stream';
import { type JSONRPCMessage, parseJSONRPCMessage, type Transport } from '@modelcontextprotocol/server';
import { DEFAULT_MESSAGE_LIMITS, type MessageLimits, prescanJson } from '../validation/json-prescan.js';

export const DEFAULT_MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

export interface LineTransportOptions {
  /** Nesting and size limits checked on each line before it is parsed. */
  messageLimits?: MessageLimits;
  /** Largest message (one line) accepted; a longer one is answered -32600 and skipped. Default 4 MiB. */
  maxMessageBytes?: number;
  /** Writes one serialized line; defaults to `output.write`. */
  write?: (line: string) => boolean;
  /** Called once when the input ends or the transport closes, whoever owns `onclose`. */
  onClosed?: () => void;
}

const NEWLINE = 0x0a;

/**
 * Newline-delimited JSON-RPC over a pair of streams. Unlike the SDK's stdio transport it answers
 * what it cannot read instead of dropping it: bad JSON gets `-32700`, a non-JSON-RPC value or a
 * batch gets `-32600` (echoing the id when there is one), an over-long line gets `-32600` and is
 * skipped without buffering it. Lines are split in linear time whatever their size.
 */
export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private discarding = false;
  private closed = false;
  private readonly maxBytes: number;
  private readonly messageLimits: Readonly<Required<MessageLimits>>;
  private readonly writeLine: (line: string) => boolean;
  private readonly onClosed?: () => void;

  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
    options: LineTransportOptions = {},
  ) {
    this.maxBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    this.messageLimits = { ...DEFAULT_MESSAGE_LIMITS, ...options.messageLimits };
    this.writeLine = options.write ?? ((line) => output.write(line));
    this.onClosed = options.onClosed;
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
    const line = `${JSON.stringify(message)}\n`;
    if (this.writeLine(line)) return Promise.resolve();
    return new Promise((resolve) => this.output.once('drain', () => resolve()));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.input.off('data', this.onData);
    this.input.off('error', this.onInputError);
    this.input.off('end', this.onEnd);
    this.input.off('close', this.onEnd);
    this.output.off('error', this.onOutputError);
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
      if (line.length > this.maxBytes) this.reject(null, -32600, this.tooLarge());
      else this.handleLine(line);
    }
    if (data.length === 0 || this.discarding) return;
    this.pendingBytes += data.length;
    if (this.pendingBytes > this.maxBytes) {
      // Answer now and drop the rest of this line as it arrives: nothing large is ever buffered.
      this.pending = [];
      this.pendingBytes = 0;
      this.discarding = true;
      this.reject(null, -32600, this.tooLarge());
      return;
    }
    this.pending.push(Buffer.from(data));
  };

  private tooLarge(): string {
    return `Invalid Request: a message must not exceed ${this.maxBytes} bytes`;
  }

  private handleLine(line: Buffer): void {
    const textLine = line.toString('utf8').trim();
    if (textLine === '') return;
    const scan = prescanJson(textLine, this.messageLimits);
    if (scan.problem) {
      this.reject(scan.id ?? null, -32600, `Invalid Request: ${scan.problem}`);
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(textLine);
    } catch {
      this.reject(null, -32700, 'Parse error: the line is not valid JSON');
      return;
    }
    if (Array.isArray(value)) {
      this.reject(null, -32600, 'Invalid Request: batches are not supported; send one JSON-RPC message per line');
      return;
    }
    let message: JSONRPCMessage;
    try {
      message = parseJSONRPCMessage(value);
    } catch {
      const id = (value as { id?: unknown } | null)?.id;
      const validId = typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null;
      // A malformed response to one of our requests has no one to answer.
      if (value && typeof value === 'object' && !('method' in value) && validId !== null) return;
      this.reject(validId, -32600, 'Invalid Request: not a JSON-RPC 2.0 request or notification');
      return;
    }
    this.onmessage?.(message);
  }

  private reject(id: string | number | null, code: number, message: string): void {
    if (this.closed) return;
    this.writeLine(`${JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } })}\n`);
  }
}
