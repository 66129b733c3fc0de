// Backpressure for a request's notifications (`ctx.progress`, `ctx.log`): a stream whose peer stops
// reading must not make the server buffer without bound. No SDK import: transports bind a valve to
// what a request's context can see (its SDK server, its HTTP request) and the Context looks it up.

/** A stream that tells whether its peer keeps up: stdout over stdio, an SSE response over HTTP. */
export interface NotificationStream {
  /** True while the stream holds more unsent bytes than its buffer allows (the peer is not reading). */
  readonly congested: boolean;
  /** Calls `listener` once, when the stream has room again or has closed. */
  onceRoom(listener: () => void): void;
}

/** Most notifications kept per stream while its peer is not reading (`maxPendingNotifications`). */
export const DEFAULT_MAX_PENDING_NOTIFICATIONS = 1_000;
/**
 * Most notifications a stream sends in one turn of the event loop; the next ones wait a turn. The
 * SDK spends about 0.3-1.5 ms on each notification it sends over HTTP, so this keeps a flood from
 * holding the event loop (other requests, `/health`) for more than a few tens of ms at a time.
 */
export const NOTIFICATIONS_PER_TURN = 32;

interface Pending {
  /** Writes the notification (the latest one, for a progress replaced while it waited). */
  write: () => Promise<void>;
  /** Resolves `done`: when the notification is written, dropped or the stream closes. */
  readonly settle: () => void;
  /** What every sender of this entry (a progress replaced many times included) waits on. */
  readonly done: Promise<void>;
  /** The request a waiting notification belongs to. */
  readonly requestId?: string | number;
  /** A progress notification (dropped when its request is answered). */
  readonly progress: boolean;
}

/** What makes a notification a progress notification: only its latest value per token matters. */
export interface ProgressOf {
  readonly token: string | number;
  readonly requestId: string | number;
}

/**
 * The notifications of one stream. While the stream has room each one is sent at once, exactly as
 * without a valve. While it is congested they wait here, in order: a progress notification
 * replaces the one still waiting for the same token (only the latest counts), a log line takes a
 * place of its own, and past `maxPending` waiting notifications the surplus is dropped (counted in
 * `dropped`). The promise a sender gets resolves when its notification is written (or replaced,
 * dropped, or the stream closes), so a handler that awaits `ctx.progress`/`ctx.log` waits for the
 * client to read instead of filling memory.
 *
 * A stream's own signal can lag (an SSE response learns of a full socket only when its writer runs,
 * a turn of the event loop later), so at most `NOTIFICATIONS_PER_TURN` go out per turn; the next
 * ones wait for the next turn like any other, which also lets other requests (`/health`) be
 * served. A handler that awaits each notification still gets every one sent, in order.
 */
export class NotificationValve {
  private readonly waiting = new Map<number | string, Pending>();
  private nextKey = 0;
  private flushing = false;
  /** Notifications sent in this turn of the event loop. */
  private sentThisTurn = 0;
  /** Notifications dropped because `maxPending` were already waiting. */
  dropped = 0;

  constructor(
    private readonly stream: NotificationStream,
    readonly maxPending: number = DEFAULT_MAX_PENDING_NOTIFICATIONS,
  ) {}

  /** Notifications waiting for the peer to read. */
  get pending(): number {
    return this.waiting.size;
  }

  /**
   * Sends now when the stream has room, else waits in line. A progress notification (`progress`)
   * replaces the one waiting for the same token. `requestId` names the request a log line belongs to.
   */
  send(send: () => Promise<void>, progress?: ProgressOf, requestId?: string | number): Promise<void> {
    if (this.waiting.size === 0 && !this.full()) return this.sendNow(send);
    // Log lines are numbered, progress tokens are strings: the two never collide in one Map.
    const key = progress === undefined ? this.nextKey++ : `${typeof progress.token}:${progress.token}`;
    const replaced = this.waiting.get(key);
    if (!replaced && this.waiting.size >= this.maxPending) {
      this.dropped++;
      return Promise.resolve();
    }
    if (replaced) {
      // The latest progress goes to the back of the line, after what was sent before it; its
      // senders share one promise, so a flood that does not await keeps one entry, not thousands.
      replaced.write = send;
      this.waiting.delete(key);
      this.waiting.set(key, replaced);
      return replaced.done;
    }
    let settle = () => {};
    const done = new Promise<void>((resolve) => {
      settle = resolve;
    });
    this.waiting.set(key, { write: send, settle, done, requestId: progress?.requestId ?? requestId, progress: progress !== undefined });
    this.scheduleFlush();
    return done;
  }

  /**
   * The request has been answered: its waiting progress is dropped (progress must not follow the
   * response, and the result says more than any progress).
   */
  answered(requestId: string | number): void {
    if (this.waiting.size === 0) return;
    for (const [key, pending] of this.waiting) {
      if (pending.requestId !== requestId || !pending.progress) continue;
      this.waiting.delete(key);
      pending.settle();
    }
  }

  /**
   * Resolves once nothing of `requestId` waits here any more (written, dropped past the cap, or the
   * stream closed): the request's answer goes after its notifications, so a handler that did not
   * await its log lines and progress loses none of them to its own answer. Notifications sent at
   * once are already ahead of the answer on the stream.
   */
  settled(requestId: string | number): Promise<void> {
    if (this.waiting.size === 0) return Promise.resolve();
    const waits: Promise<void>[] = [];
    for (const pending of this.waiting.values()) if (pending.requestId === requestId) waits.push(pending.done);
    return waits.length === 0 ? Promise.resolve() : Promise.all(waits).then(() => undefined);
  }

  /** No more notifications now: the peer is behind, or this turn's share has gone out. */
  private full(): boolean {
    return this.sentThisTurn >= NOTIFICATIONS_PER_TURN || this.stream.congested;
  }

  private sendNow(send: () => Promise<void>): Promise<void> {
    if (this.sentThisTurn++ === 0) setImmediate(this.nextTurn);
    return send();
  }

  private readonly nextTurn = () => {
    this.sentThisTurn = 0;
  };

  private scheduleFlush(): void {
    if (this.flushing) return;
    this.flushing = true;
    if (this.stream.congested) this.stream.onceRoom(this.flush);
    else setImmediate(this.flush);
  }

  private readonly flush = (): void => {
    this.flushing = false;
    for (const [key, pending] of this.waiting) {
      if (this.full()) break;
      this.waiting.delete(key);
      this.sendNow(pending.write).then(pending.settle, pending.settle);
    }
    if (this.waiting.size > 0) this.scheduleFlush();
  };
}

const valves = new WeakMap<object, NotificationValve | (() => NotificationValve)>();

/**
 * Makes `valve` the one the notifications of whatever `key` stands for go through (an SDK server,
 * an HTTP request). A function is called the first time a notification needs it, so requests that
 * send none make none.
 */
export function bindNotificationValve(key: object, valve: NotificationValve | (() => NotificationValve)): void {
  valves.set(key, valve);
}

/** The valve bound to the first of `keys` that has one, or undefined (no backpressure known). */
export function notificationValveOf(...keys: readonly unknown[]): NotificationValve | undefined {
  for (const key of keys) {
    if (typeof key !== 'object' || key === null) continue;
    const bound = valves.get(key);
    if (bound === undefined) continue;
    if (bound instanceof NotificationValve) return bound;
    const valve = bound();
    valves.set(key, valve);
    return valve;
  }
  return undefined;
}
