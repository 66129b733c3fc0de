import { defineExtension, type Extension, type ExtensionContext } from '@armature/core';
import { DELIVERY_MODES, type EmitResult, type EventsOptions, EventsRuntime } from './events-runtime.js';
import { PollParams, StreamParams, SubscribeParams, UnsubscribeParams } from './params.js';

/** The extension id events are advertised under, at `capabilities.extensions`. */
export const EVENTS_EXTENSION_ID = 'io.modelcontextprotocol/events';

/** What `events({...})` gives: the extension to serve, and the app's way to emit. */
export interface Events {
  /** Give it to `createMcpApp(Server, { extensions: [events.extension] })`. */
  readonly extension: Extension;
  /**
   * Emits an event: the payload is validated against the event's DTO, kept for `events/poll` and
   * the open `events/stream` requests, and queued for every matching webhook subscription. Call it from anywhere, a tool handler included.
   */
  emit<P extends object>(name: string, payload: P): Promise<EmitResult>;
  /**
   * Stops delivering (attempts in flight finish), ends open streams and closes the store. The app
   * does this itself when it closes (the last of the apps sharing these events does); call it
   * earlier to end open streams before `app.shutdown` waits for running calls. Calling it again
   * returns the same promise.
   */
  close(): Promise<void>;
}

/** The caller as subscriptions are keyed on: client id and subject, as sessions are bound. */
function principalOf(ctx: ExtensionContext): string | undefined {
  const principal = ctx.principal;
  if (!principal) return undefined;
  const sub = principal.extra?.sub;
  return `${principal.clientId}\u0000${typeof sub === 'string' ? sub : ''}`;
}

/**
 * Events (the SEP-3415 draft), as an extension: `events/list`, `events/subscribe`,
 * `events/unsubscribe`, `events/poll` and `events/stream` (push, one long-lived request per
 * subscription), webhook delivery signed per Standard Webhooks with retries,
 * subscriptions that expire unless renewed, and egress refused to non-public addresses. Experimental:
 * `experimental: true` is required, and the method names may change with the draft.
 *
 * @example
 * ```ts
 * const incidents = events({ experimental: true, events: [{ name: 'incident.created', description: '...', payload: Incident }] });
 * const app = createMcpApp(Server, { extensions: [incidents.extension] });
 * await incidents.emit('incident.created', { id: 'INC-1', severity: 'P1' });
 * ```
 */
export function events(options: EventsOptions): Events {
  const runtime = new EventsRuntime(options);
  let apps = 0;
  const extension = defineExtension({
    id: EVENTS_EXTENSION_ID,
    settings: { experimental: true, delivery: [...DELIVERY_MODES] },
    methods: {
      'events/list': { handle: () => runtime.list() },
      'events/subscribe': {
        params: SubscribeParams,
        handle: (params: SubscribeParams, ctx: ExtensionContext) => runtime.subscribe(principalOf(ctx), params),
      },
      'events/unsubscribe': {
        params: UnsubscribeParams,
        handle: (params: UnsubscribeParams, ctx: ExtensionContext) => runtime.unsubscribe(principalOf(ctx), params),
      },
      'events/poll': { params: PollParams, handle: (params: PollParams) => runtime.poll(params) },
      'events/stream': {
        params: StreamParams,
        longLived: true, // open until the client cancels or goes away, or the app closes
        handle: (params: StreamParams, ctx: ExtensionContext) => runtime.stream(principalOf(ctx), params, ctx),
      },
    },
    setup: () => {
      apps += 1;
      runtime.start();
    },
    // Apps may share one events(): it stops with the last app that set it up.
    close: () => {
      apps -= 1;
      return apps === 0 ? runtime.stop() : undefined;
    },
  });
  return {
    extension,
    emit: (name, payload) => runtime.emit(name, payload),
    close: () => runtime.stop(),
  };
}
