// A raw JSON-RPC peer over the stdin/stdout of a server child process: it writes exact bytes and
// records every line that comes back, counted by id, so lost, duplicated and stray answers show.
import type { ServerProcess } from '../child.js';
import { type Id, INITIALIZED, initializeRequest, isResponse, type JsonRpcMessage } from './jsonrpc.js';

export class StdioPeer {
  /** Every response received, by id (a key of `String(id)` so 1 and "1" stay apart with a prefix). */
  readonly answers = new Map<string, JsonRpcMessage[]>();
  /** Responses whose id is null or not a string/number. */
  readonly nullIdAnswers: JsonRpcMessage[] = [];
  /** Server-to-client requests and notifications. */
  readonly inbound: JsonRpcMessage[] = [];
  /** Lines that were not JSON. */
  readonly garbage: string[] = [];
  /** Every line received (responses, requests, notifications and garbage). */
  received = 0;
  /** The raw text of every line received, when `keepRaw` is on. */
  readonly raw: string[] = [];
  keepRaw = false;
  private buffer = '';
  private drained?: Promise<void>;
  private readonly waiters = new Map<string, Array<(m: JsonRpcMessage) => void>>();
  private nullWaiters: Array<(m: JsonRpcMessage) => void> = [];
  private nextId = 1_000_000_000;
  /** Ids this peer chose itself (initialize, `request`): not part of a figure's traffic. */
  readonly ownIds = new Set<string>();

  constructor(readonly server: ServerProcess) {
    const out = server.child.stdout;
    if (!out) throw new Error('the server has no stdout pipe');
    out.setEncoding('utf8');
    out.on('data', (chunk: string) => this.onData(chunk));
  }

  static key(id: unknown): string {
    return `${typeof id}:${String(id)}`;
  }

  private onData(chunk: string): void {
    this.buffer += chunk;
    let newline = this.buffer.indexOf('\n');
    while (newline !== -1) {
      const line = this.buffer.slice(0, newline);
      this.buffer = this.buffer.slice(newline + 1);
      newline = this.buffer.indexOf('\n');
      if (line.trim() === '') continue;
      this.received++;
      if (this.keepRaw) this.raw.push(line);
      let message: JsonRpcMessage;
      try {
        message = JSON.parse(line);
      } catch {
        this.garbage.push(line.slice(0, 200));
        continue;
      }
      if (!isResponse(message)) {
        this.inbound.push(message);
        continue;
      }
      if (typeof message.id !== 'string' && typeof message.id !== 'number') {
        this.nullIdAnswers.push(message);
        const waiters = this.nullWaiters;
        this.nullWaiters = [];
        for (const resolve of waiters) resolve(message);
        continue;
      }
      const key = StdioPeer.key(message.id);
      const list = this.answers.get(key);
      if (list) list.push(message);
      else this.answers.set(key, [message]);
      const waiters = this.waiters.get(key);
      if (waiters) {
        this.waiters.delete(key);
        for (const resolve of waiters) resolve(message);
      }
    }
  }

  /** Writes raw text (a line, part of one, or many) and waits for the pipe to take it. */
  write(data: string | Buffer): Promise<void> {
    const input = this.server.child.stdin;
    if (!input || input.destroyed) return Promise.reject(new Error('the server stdin is closed'));
    if (input.write(data)) return Promise.resolve();
    // One shared wait for 'drain', however many writers are waiting on it.
    this.drained ??= new Promise<void>((resolve) =>
      input.once('drain', () => {
        this.drained = undefined;
        resolve();
      }),
    );
    return this.drained;
  }

  send(message: unknown): Promise<void> {
    return this.write(`${JSON.stringify(message)}\n`);
  }

  freshId(): number {
    const id = this.nextId++;
    this.ownIds.add(StdioPeer.key(id));
    return id;
  }

  /** Resolves with the first response for `id`, or undefined after `timeoutMs`. */
  waitFor(id: Id, timeoutMs: number): Promise<JsonRpcMessage | undefined> {
    const key = StdioPeer.key(id);
    const have = this.answers.get(key);
    if (have) return Promise.resolve(have[0]);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        const list = this.waiters.get(key);
        if (list)
          this.waiters.set(
            key,
            list.filter((w) => w !== done),
          );
        resolve(undefined);
      }, timeoutMs);
      const done = (message: JsonRpcMessage) => {
        clearTimeout(timer);
        resolve(message);
      };
      const list = this.waiters.get(key) ?? [];
      list.push(done);
      this.waiters.set(key, list);
    });
  }

  /** Resolves with the next response whose id is null, or undefined after `timeoutMs`. */
  waitForNullId(timeoutMs: number): Promise<JsonRpcMessage | undefined> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.nullWaiters = this.nullWaiters.filter((w) => w !== done);
        resolve(undefined);
      }, timeoutMs);
      const done = (message: JsonRpcMessage) => {
        clearTimeout(timer);
        resolve(message);
      };
      this.nullWaiters.push(done);
    });
  }

  async request(method: string, params: Record<string, unknown> = {}, timeoutMs = 10_000): Promise<JsonRpcMessage | undefined> {
    const id = this.freshId();
    const answered = this.waitFor(id, timeoutMs);
    await this.send({ jsonrpc: '2.0', id, method, params });
    return answered;
  }

  /** initialize (2025-11-25) + notifications/initialized. */
  async initialize(): Promise<void> {
    const id = this.freshId();
    const answered = this.waitFor(id, 10_000);
    await this.send(initializeRequest(id));
    const answer = await answered;
    if (!answer?.result) throw new Error(`stdio initialize failed: ${JSON.stringify(answer)}`);
    await this.send(INITIALIZED);
  }

  /**
   * Sends `lines` (one JSON-RPC request each, ids given in `ids`) in chunks of `window`, waiting
   * for every answer of a chunk (at most `chunkTimeoutMs`) before writing the next.
   * Returns how many ids got no answer in time.
   */
  async pipeline(ids: readonly Id[], lines: readonly string[], window: number, chunkTimeoutMs = 30_000): Promise<number> {
    let unanswered = 0;
    for (let start = 0; start < lines.length; start += window) {
      const chunkIds = ids.slice(start, start + window);
      const waits = chunkIds.map((id) => this.waitFor(id, chunkTimeoutMs));
      await this.write(`${lines.slice(start, start + window).join('\n')}\n`);
      const answers = await Promise.all(waits);
      unanswered += answers.filter((a) => a === undefined).length;
    }
    return unanswered;
  }

  count(id: Id): number {
    return this.answers.get(StdioPeer.key(id))?.length ?? 0;
  }
}
