import { AsyncLocalStorage } from 'node:async_hooks';
import type { Client } from '@modelcontextprotocol/client';
import { LOG_LEVEL_META_KEY, ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { Context, LogLevel } from '../context/context.js';
import { MODERN_REVISION } from '../context/revisions.js';
import { remoteMessages } from '../messages/remote-messages.js';
import { InputRequiredSignal } from '../runtime/client-requests.js';
import { RequestContext } from '../runtime/request-context.js';
import type { ClientSdk } from './client-sdk.js';
import { urlProblem } from './elicitation-url.js';

/** The requests a server may make of its client, which the app hands to the client of the call. */
const RELAYED = ['elicitation/create', 'sampling/createMessage', 'roots/list'] as const;

type Params = Record<string, unknown>;

/**
 * Asks the client of `ctx` what a remote server asked of the app: a form or URL elicitation,
 * a sampling request or its roots; the answer is what the remote gets. On 2026-07-28 the question
 * ends the client's call with `input_required`, as any handler's does. A URL elicitation whose URL
 * may not be opened (see `urlProblem`) is refused, never put to the client.
 */
export async function askCaller(ctx: Context, method: string, params: Params, key?: string): Promise<Record<string, unknown>> {
  // The remote's key names the question to the app's client too (2026-07-28), so it reads the same.
  const named = key === undefined ? {} : { key };
  switch (method) {
    case 'elicitation/create':
      if (params.mode === 'url') {
        const problem = urlProblem(params.url);
        if (problem) throw new UnsafeUrlError(problem);
        return ctx.elicitUrl(String(params.message), String(params.url), named);
      }
      return ctx.elicit(String(params.message), params.requestedSchema as never, named);
    case 'sampling/createMessage':
      return (await ctx.sample(params as never, named)) as unknown as Record<string, unknown>;
    case 'roots/list':
      return { roots: await ctx.roots(named) };
    default:
      throw new ProtocolError(ProtocolErrorCode.MethodNotFound, remoteMessages.notRelayed(method));
  }
}

/** A URL elicitation refused: the remote's request gets this error (on 2026-07-28, where it cannot, the caller gets a tool error). */
export class UnsafeUrlError extends ProtocolError {
  constructor(readonly problem: string) {
    super(ProtocolErrorCode.InvalidParams, remoteMessages.unsafeUrl(problem));
  }
}

/** A forwarded call stopped by its whole call's limit (`maxCallMs`), which the remote's progress does not extend. */
export class CallTimeLimit extends Error {
  constructor(readonly maxCallMs: number) {
    super(remoteMessages.callTimeLimit(maxCallMs));
    this.name = 'CallTimeLimit';
  }
}

/** One forwarded call: its Context, and how to stop its request to the remote early. */
interface Forwarded {
  readonly ctx: Context;
  readonly stop: AbortController;
}

/**
 * Which call of the app a remote server's message belongs to. Progress and cancellation carry
 * their request; logs and, on 2025-11-25, the server's own requests (elicitation, sampling,
 * roots) do not. Over Streamable HTTP they arrive on the call's own response stream, read in
 * the async context of the official client's request, so the context says; over stdio nothing
 * does, and they go to the one call in progress, or to none. On 2026-07-28 questions come back in
 * the call's answer (`input_required`) and never need this, nor does the direct path, which
 * hands its answer's messages to the call itself.
 *
 * The context is entered only around a request of the official client (`labelled`): once an
 * AsyncLocalStorage has run, Node 20 calls its hooks on every promise of the process, which made
 * a gateway serving only direct-path calls pay them on all its work.
 */
export class RemoteRelay {
  private readonly current = new AsyncLocalStorage<Forwarded>();
  private readonly inFlight = new Set<Forwarded>();

  /** @param unlabelled whether the connection leaves messages unlabelled (stdio): then the one call in progress is taken to be theirs. */
  constructor(private readonly unlabelled: boolean) {}

  /**
   * Runs `work` as a call of `ctx`. The signal `work` gets aborts when the caller cancels, after
   * `maxCallMs` (the call then fails with CallTimeLimit), or to ask a 2026-07-28 caller; its reason is this relay's own, never the
   * caller's: a caller gone with its connection must not read as the remote's connection closing
   * (the request is cancelled, the link stays). `work` sends each request of the official client
   * through `labelled`, so that the remote's messages during it can find `ctx`.
   */
  async run<T>(
    ctx: Context,
    maxCallMs: number,
    work: (signal: AbortSignal, labelled: <R>(send: () => Promise<R>) => Promise<R>) => Promise<T>,
  ): Promise<T> {
    const forwarded: Forwarded = { ctx, stop: new AbortController() };
    const cancelled = () => forwarded.stop.abort(remoteMessages.callerCancelled());
    ctx.signal.addEventListener('abort', cancelled, { once: true });
    if (ctx.signal.aborted) cancelled();
    const limit = setTimeout(() => forwarded.stop.abort(new CallTimeLimit(maxCallMs)), maxCallMs);
    this.inFlight.add(forwarded);
    try {
      // Over stdio a message is read outside every call's context: the context would say nothing.
      return await work(forwarded.stop.signal, (send) => (this.unlabelled ? send() : this.current.run(forwarded, send)));
    } catch (error) {
      // The client's call ended with a question of its own (2026-07-28): that is its answer; or it ran out of time.
      const reason = forwarded.stop.signal.reason;
      throw reason instanceof InputRequiredSignal || reason instanceof CallTimeLimit ? reason : error;
    } finally {
      clearTimeout(limit);
      ctx.signal.removeEventListener('abort', cancelled);
      this.inFlight.delete(forwarded);
    }
  }

  /** The call the message being handled belongs to, if that can be known. */
  private caller(): Forwarded | undefined {
    const current = this.current.getStore();
    if (current) return current;
    // Over HTTP a message read outside every call's context came on the standalone stream: no call's.
    if (this.unlabelled && this.inFlight.size === 1) return this.inFlight.values().next().value;
    return undefined;
  }

  /** Lets `client` hand the remote's requests and logs to the calls they belong to. */
  attach(client: Client, sdk: ClientSdk): void {
    for (const method of RELAYED) {
      client.setRequestHandler(method, async (request) => {
        const caller = this.caller();
        if (!caller)
          throw new sdk.ProtocolError(
            sdk.ProtocolErrorCode.InvalidRequest,
            remoteMessages.noCaller(this.unlabelled ? this.inFlight.size : 0),
          );
        try {
          return (await askCaller(caller.ctx, method, (request.params ?? {}) as Params)) as never;
        } catch (error) {
          // A 2026-07-28 client is asked by ending its call: the remote's call is over too.
          if (error instanceof InputRequiredSignal) caller.stop.abort(error);
          // The client's JSON-RPC error (it declined to answer, say) goes to the remote as it is.
          if (error instanceof ProtocolError) throw new sdk.ProtocolError(error.code, error.message, error.data);
          throw error;
        }
      });
    }
    client.setNotificationHandler('notifications/message', (notification) => {
      const ctx = this.caller()?.ctx;
      if (ctx) relayLog(ctx, notification.params);
    });
  }
}

const LEVELS: ReadonlySet<unknown> = new Set<LogLevel>(['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency']);

/** Hands a remote's log line (`notifications/message` params) to the client of the call it belongs to; a line of no known level is dropped. */
export function relayLog(ctx: Context, params: { level?: unknown; data?: unknown; logger?: unknown }): void {
  const { level, data, logger } = params;
  if (!LEVELS.has(level)) return;
  if (ctx instanceof RequestContext) void ctx.relayLog(level as LogLevel, data, typeof logger === 'string' ? logger : undefined);
  else void ctx.log[level as LogLevel](typeof data === 'string' ? data : JSON.stringify(data));
}

/**
 * The level a 2026-07-28 remote is asked to log at during a call of `ctx` (its request's
 * `_meta` logLevel): the lowest one the call's client lets through, so that the remote sends
 * what the client gets and no more. A 2026-07-28 client names its own in its request, or none
 * (it gets no line, and the remote is asked for none, so it can answer plain JSON); any other
 * call's level (a 2025-11-25 session's) is kept by the SDK server, so every line is asked for
 * and `relayLog` lets through what that level does.
 */
export function remoteLogLevel(ctx: Context): LogLevel | undefined {
  if (!(ctx instanceof RequestContext) || ctx.revision !== MODERN_REVISION) return 'debug';
  const level = ctx.source.envelope?.[LOG_LEVEL_META_KEY];
  return LEVELS.has(level) ? (level as LogLevel) : undefined;
}
