/**
 * What the server itself did, told to whoever watches the app (structured logs, metrics): not what
 * a handler tells its client (that is `ctx.log`). One hub per app; the sites that refuse, fail,
 * start or stop emit here once, and every observer reads the same event.
 */

/** Why a request (or a connection) was refused before or instead of being served. */
export type RefusalReason =
  | 'rate-limit'
  | 'failed-auth-limit'
  | 'task-limit'
  | 'session-cap'
  | 'client-cap'
  | 'listen-cap'
  | 'too-large'
  | 'host'
  | 'origin'
  | 'unauthorized'
  | 'forbidden'
  | 'header-mismatch'
  | 'not-ready';

export type ServerEvent =
  /** The app serves on `transport` (at `url` for HTTP). */
  | { readonly event: 'started'; readonly transport: 'stdio' | 'http'; readonly url?: string }
  /** The app began its graceful shutdown (`reason`: the signal or `close()`). */
  | { readonly event: 'stopping'; readonly reason: string }
  /** The app closed: every request finished or was stopped, every connection is closed. */
  | { readonly event: 'stopped' }
  /**
   * A request or connection was refused: `message` is what the caller was told, `retryAfterMs` when
   * trying again later can work (rate limits), `method`/`requestId` when the refusal is of one
   * JSON-RPC request, `client` the caller's address or principal when known.
   */
  | {
      readonly event: 'refused';
      readonly reason: RefusalReason;
      readonly message: string;
      readonly method?: string;
      readonly requestId?: string | number;
      readonly client?: string;
      readonly retryAfterMs?: number;
    }
  /**
   * A setting that puts the server at risk as it is deployed (`option`: which one; `message`: the
   * risk and the fix), told once: e.g. `trustProxy` while requests come straight from public addresses.
   */
  | { readonly event: 'misconfigured'; readonly option: string; readonly message: string }
  /**
   * A handler (or middleware, or a conversion) failed unexpectedly; the caller got an error answer,
   * masked unless the app sets `exposeErrors`, naming `errorId` (when there is one) for operators to find here.
   */
  | {
      readonly event: 'call-failed';
      readonly what: string;
      /** What failed, for the log line: `tool "greet"`, `resource "ui://counter/view.html"`, `prompt "plan"`. */
      readonly label: string;
      readonly requestId: unknown;
      readonly errorId?: string;
      readonly error: unknown;
    }
  /** An extension's `close` hook threw or rejected as the app closed (the other extensions still closed). */
  | { readonly event: 'extension-close-failed'; readonly extension: string; readonly error: unknown }
  /** A remote server mounted in the app (`part`, e.g. `mount('weather')`) answered and its catalogue is served. */
  | { readonly event: 'remote-up'; readonly part: string; readonly remote: string; readonly revision: string }
  /** A remote server went away, or could not be reached (`reason`); it is tried again by itself. */
  | { readonly event: 'remote-down'; readonly part: string; readonly remote: string; readonly reason: string; readonly retryInMs: number }
  /** An entry of a remote server's catalogue is not served (`reason`: its name clashes, or is not valid here). */
  | { readonly event: 'remote-skipped'; readonly part: string; readonly name: string; readonly reason: string };

export type ServerEventListener = (event: ServerEvent) => void;

/** The app's event hub: emitting costs one length check while nobody listens. */
export class ServerEvents {
  private listeners: readonly ServerEventListener[] = [];

  /** Calls `listener` with every later event; returns the function that stops it. */
  on(listener: ServerEventListener): () => void {
    this.listeners = [...this.listeners, listener];
    return () => {
      this.listeners = this.listeners.filter((l) => l !== listener);
    };
  }

  /** Whether anyone listens: a site whose event is costly to build may skip it otherwise. */
  get observed(): boolean {
    return this.listeners.length > 0;
  }

  /** Tells every listener; a listener that throws is not the server's failure and is ignored. */
  emit(event: ServerEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // An observer's bug must not turn into a failed request or a crashed server.
      }
    }
  }
}
