/** A finished span as the console page draws it: times in epoch milliseconds. */
export interface SpanRecord {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly name: string;
  readonly kind: number;
  readonly startMs: number;
  readonly endMs: number;
  /** 0 unset, 1 ok, 2 error (OpenTelemetry's SpanStatusCode). */
  readonly status: { readonly code: number; readonly message?: string };
  readonly attributes: Readonly<Record<string, unknown>>;
  readonly events: readonly { readonly name: string; readonly timeMs: number }[];
}

/** What the server process tells the console over its IPC channel. */
export type HostMessage =
  | { readonly type: 'up'; readonly url: string; readonly handlers: Readonly<Record<string, HandlerFacts>> }
  | { readonly type: 'failed'; readonly message: string; readonly problems: readonly StartupProblem[] }
  | { readonly type: 'spans'; readonly spans: readonly SpanRecord[] };

/** One problem of an ArmatureBuildError (its code, `Class.method`, what, and the fix). */
export interface StartupProblem {
  readonly code?: string;
  readonly where: string;
  readonly message: string;
  readonly fix: string;
}

/**
 * What Armature knows of a handler and no client sees in the lists, by the page's key
 * (`tool:name`, `resource:uri`, `template:uriTemplate`, `prompt:name`).
 */
export interface HandlerFacts {
  /** `Class.method`. */
  readonly where: string;
  readonly tags: readonly string[];
  /** How many guards and rate limits apply to it (the app's, its server's and its own). */
  readonly guards: number;
  readonly rateLimits: number;
}
