import type { EventsStore, LogPage } from './events-store.js';

/** The `_meta` key that ties each `notifications/events/*` to its `events/stream` request (the draft's). */
export const SUBSCRIPTION_ID_META = 'io.modelcontextprotocol/subscriptionId';

/** Most log entries one read of a stream takes (it reads again at once while more are waiting). */
const PAGE = 100;

export interface StreamLimits {
  /** Send a heartbeat after this long without a message. */
  readonly heartbeatMs: number;
  /** Read the shared log this often (events emitted by other instances arrive within it). */
  readonly checkMs: number;
  readonly maxPerCaller: number;
  readonly maxTotal: number;
}

/** One open `events/stream`: what it listens for, and how it talks to its client. */
export interface StreamRequest {
  readonly name: string;
  /** Whether an emitted payload is for this stream (the event's `match` with its arguments). */
  readonly matches: (data: object) => boolean;
  /** What the client reads when `matches` threw on `count` events. */
  readonly matchFailed: (count: number) => string;
  readonly requestId: string | number;
  /** The first read, done before the stream was opened (so a bad cursor is a plain error). */
  readonly first: LogPage;
  /** The cursor the client gave (null: from now). */
  readonly from: string | null;
  /** Skip events older than this (epoch ms; only replayed ones can be), reporting `truncated`. */
  readonly floor: number | undefined;
  readonly signal: AbortSignal;
  notify(method: string, params: Record<string, unknown>): Promise<void>;
}

/** Why `open` refused: a limit reached. */
export type StreamRefusal = { readonly limit: 'streams'; readonly max: number; readonly perCaller: boolean };

class OpenStream {
  /** The position after the last event read (and sent, when it matched). */
  position: string;
  lastSentAt = Date.now();
  private dirty = false;
  /** False until `active` and the replay are sent: what is woken before waits for them. */
  private ready = false;
  private pumping?: Promise<void>;
  private ended = false;
  private readonly done: Promise<void>;
  private finish!: () => void;

  constructor(
    readonly request: StreamRequest,
    private readonly store: EventsStore,
  ) {
    this.position = request.first.cursor;
    this.done = new Promise((resolve) => {
      this.finish = resolve;
    });
  }

  get meta() {
    return { [SUBSCRIPTION_ID_META]: this.request.requestId };
  }

  /** Sends `active`, replays the first page, then delivers until the stream ends. */
  async run(): Promise<void> {
    const { first, from } = this.request;
    const replay = this.deliverable(first);
    // The cursor it starts from: safe to persist (never past an event not yet sent).
    await this.send('notifications/events/active', { cursor: from ?? first.cursor, truncated: replay.skipped, _meta: this.meta });
    await this.sendAll(replay);
    this.ready = true;
    if (first.hasMore || this.dirty) this.wake();
    await this.done;
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.finish();
  }

  /** New entries may be in the log: read them (once at a time). */
  wake(): void {
    if (this.ended) return;
    this.dirty = true;
    if (!this.ready) return;
    this.pumping ??= this.pump().finally(() => {
      this.pumping = undefined;
    });
  }

  /** A heartbeat when the stream has been quiet for `heartbeatMs`. */
  beat(now: number, heartbeatMs: number): void {
    if (this.ended || !this.ready || this.pumping || now - this.lastSentAt < heartbeatMs) return;
    void this.send('notifications/events/heartbeat', { cursor: this.position, _meta: this.meta });
  }

  private async pump(): Promise<void> {
    while (this.dirty && !this.ended) {
      this.dirty = false;
      try {
        const page = await this.store.readLog(this.request.name, this.position, PAGE);
        if (!page || this.ended) return;
        const read = this.deliverable(page);
        // The reader fell behind what the log keeps (or what maxAgeMs allows): it is told, and goes on.
        if (read.skipped) await this.send('notifications/events/active', { cursor: this.position, truncated: true, _meta: this.meta });
        this.position = page.cursor;
        await this.sendAll(read);
        if (page.hasMore) this.dirty = true;
      } catch {
        // A store that failed this once (Redis away): the next check reads again from the same position.
        return;
      }
    }
  }

  /**
   * The page's events for this stream, each with the cursor after it; `skipped` when some were lost
   * or too old; `failed`, the events the app's `match` threw on (skipped, and reported).
   */
  private deliverable(page: LogPage) {
    const events: Record<string, unknown>[] = [];
    let skipped = page.truncated;
    let failed = 0;
    const { floor } = this.request;
    page.bodies.forEach((body, i) => {
      const occurrence = JSON.parse(body) as { timestamp: string; data: object };
      if (floor !== undefined && Date.parse(occurrence.timestamp) < floor) {
        skipped = true;
        return;
      }
      let matched: boolean;
      try {
        matched = this.request.matches(occurrence.data);
      } catch {
        failed++;
        return;
      }
      if (matched) events.push({ ...occurrence, cursor: page.cursors[i] ?? page.cursor, _meta: this.meta });
    });
    return { events, skipped, failed };
  }

  private async sendAll({ events, failed }: { events: readonly Record<string, unknown>[]; failed: number }) {
    for (const event of events) {
      if (this.ended) return;
      await this.send('notifications/events/event', event);
    }
    // The draft's transient error: the stream goes on.
    if (failed > 0)
      await this.send('notifications/events/error', {
        error: { code: -32603, message: this.request.matchFailed(failed) },
        _meta: this.meta,
      });
  }

  /** A message to the client; one that cannot be sent (the client went away) ends the stream. */
  private async send(method: string, params: Record<string, unknown>) {
    if (this.ended) return;
    this.lastSentAt = Date.now();
    try {
      await this.request.notify(method, params);
    } catch {
      this.end();
    }
  }
}

/**
 * The open `events/stream` requests of this instance: each reads its event type's log from its own
 * cursor, woken at once by an emit here and every `checkMs` for emits elsewhere, with a heartbeat
 * when quiet. Bounded per caller and in all; each ends when its request is cancelled or its client
 * goes away, and all end when the events runtime stops.
 */
export class EventStreams {
  private readonly byName = new Map<string, Set<OpenStream>>();
  private readonly perCaller = new Map<string, number>();
  private total = 0;
  private timer?: ReturnType<typeof setInterval>;
  private stopped = false;

  constructor(
    private readonly store: EventsStore,
    private readonly limits: StreamLimits,
  ) {}

  /** Whether `caller` may open one more stream now; undefined when it may. */
  refusal(caller: string): StreamRefusal | undefined {
    if ((this.perCaller.get(caller) ?? 0) >= this.limits.maxPerCaller)
      return { limit: 'streams', max: this.limits.maxPerCaller, perCaller: true };
    if (this.total >= this.limits.maxTotal) return { limit: 'streams', max: this.limits.maxTotal, perCaller: false };
    return undefined;
  }

  /** Holds a slot for `caller` (checked with `refusal` first); `release` gives it back. */
  hold(caller: string): () => void {
    this.perCaller.set(caller, (this.perCaller.get(caller) ?? 0) + 1);
    this.total++;
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.total--;
      const left = (this.perCaller.get(caller) ?? 1) - 1;
      if (left === 0) this.perCaller.delete(caller);
      else this.perCaller.set(caller, left);
    };
  }

  /** Serves one stream until it ends (cancel, disconnect, or stop). */
  async serve(request: StreamRequest): Promise<void> {
    const stream = new OpenStream(request, this.store);
    if (this.stopped || request.signal.aborted) return;
    const onAbort = () => stream.end();
    request.signal.addEventListener('abort', onAbort, { once: true });
    const set = this.byName.get(request.name) ?? new Set<OpenStream>();
    this.byName.set(request.name, set);
    set.add(stream);
    this.tick();
    try {
      await stream.run();
    } finally {
      request.signal.removeEventListener('abort', onAbort);
      set.delete(stream);
      if (set.size === 0) this.byName.delete(request.name);
      if (this.byName.size === 0) this.idle();
    }
  }

  /** Something was logged for `name` here: its streams read it now. */
  wake(name: string): void {
    for (const stream of this.byName.get(name) ?? []) stream.wake();
  }

  /** Ends every stream (their requests are answered) and opens no more. */
  stop(): void {
    this.stopped = true;
    for (const set of this.byName.values()) for (const stream of set) stream.end();
    this.idle();
  }

  get isStopped(): boolean {
    return this.stopped;
  }

  /** One timer for all streams, running only while some are open. */
  private tick(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      const now = Date.now();
      for (const set of this.byName.values())
        for (const stream of set) {
          stream.beat(now, this.limits.heartbeatMs);
          stream.wake();
        }
    }, this.limits.checkMs);
    this.timer.unref?.();
  }

  private idle(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
