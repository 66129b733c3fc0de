import type { AuthInfo } from '@modelcontextprotocol/server';
import { wireMessages } from '../../messages/wire-messages.js';
import type { ServerEvents } from '../../observability/server-events.js';
import { storeUnavailableMessage } from '../../state/app-state.js';
import type { Caller } from '../http/http-caller.js';
import type { Message } from '../http/http-messages.js';
import { jsonRpcErrorResponse } from '../wire/json-rpc-error-response.js';
import type { ListenCaps } from './listen-caps.js';

/**
 * The app's resource-URI caps (`createMcpApp` options `maxSubscriptionsPerSession`, `maxUriLength`),
 * which `resources/subscribe` obeys in the runtime: a `subscriptions/listen` filter, served by the
 * SDK, is held to them here.
 */
export interface UriLimits {
  readonly maxSubscriptionsPerSession: number;
  readonly maxUriLength: number;
  /**
   * The first of `uris` the caller may not read (missing or hidden by guards and scopes alike), or
   * undefined: a listen stream asks the same as `resources/read` and `resources/subscribe`.
   */
  readonly unreadable?: (
    uris: readonly string[],
    principal: AuthInfo | undefined,
    meta: Record<string, unknown> | undefined,
  ) => Promise<string | undefined>;
}

/** The lease key every instance's streams count against for the total cap (no client key looks like it). */
const ALL_CLIENTS = 'all-clients';

/**
 * Whether a 2026-07-28 `subscriptions/listen` request may open its stream: its resource filter
 * obeys the same caps, guards and scopes as a session's `resources/subscribe`, and the client
 * holds fewer streams than its cap (counted across instances with a shared state).
 */
export class ListenPolicy {
  /**
   * @param total given when instances share a state: every instance's streams counted together
   *   (each instance's own are capped by the SDK's `maxSubscriptions`).
   */
  constructor(
    private readonly uriLimits: UriLimits,
    private readonly perClient: ListenCaps,
    private readonly storeName: string,
    private readonly total?: ListenCaps,
    private readonly events?: ServerEvents,
  ) {}

  /** The answer refusing `message`, or the release of the stream slot it now holds. */
  async admit(message: Message, caller: Caller): Promise<{ release: () => void } | { response: Response }> {
    const id = message.id ?? null;
    const filter = message.params?.notifications as { resourceSubscriptions?: unknown; taskIds?: unknown } | undefined;
    const uris = filter?.resourceSubscriptions;
    const filterProblem = (Array.isArray(uris) ? this.filterProblem(uris) : undefined) ?? this.taskIdsProblem(filter?.taskIds);
    if (filterProblem) return { response: jsonRpcErrorResponse(200, -32602, filterProblem, id) };
    const meta = message.params?._meta as Record<string, unknown> | undefined;
    const refused = Array.isArray(uris) ? await this.uriLimits.unreadable?.(uris.map(String), caller.principal, meta) : undefined;
    // Answered exactly like resources/read of a URI that does not exist.
    if (refused !== undefined) return { response: jsonRpcErrorResponse(200, -32602, wireMessages.resourceNotFound(refused), id) };
    let release: (() => void) | undefined;
    let releaseTotal: (() => void) | undefined;
    try {
      release = await this.perClient.acquire(caller.client);
      // The same JSON-RPC error the SDK gives at its own (total) limit, naming this cap.
      if (!release) return this.capReached(wireMessages.tooManyClientListens(this.perClient.max), id, caller);
      if (this.total) {
        releaseTotal = await this.total.acquire(ALL_CLIENTS);
        if (!releaseTotal) {
          release();
          return this.capReached(wireMessages.tooManyListens(this.total.max), id, caller);
        }
      }
    } catch {
      release?.();
      return { response: jsonRpcErrorResponse(503, -32000, storeUnavailableMessage(this.storeName), id, { 'retry-after': '5' }) };
    }
    const held = release;
    const heldTotal = releaseTotal;
    return {
      release: () => {
        held();
        heldTotal?.();
      },
    };
  }

  /** The answer at a listen cap (the client's or, across instances, the total), told to the app's observers. */
  private capReached(message: string, id: Message['id'] | null, caller: Caller): { response: Response } {
    this.events?.emit({
      event: 'refused',
      reason: 'listen-cap',
      message,
      method: 'subscriptions/listen',
      ...(typeof id === 'string' || typeof id === 'number' ? { requestId: id } : {}),
      ...(caller.client !== undefined ? { client: caller.client } : {}),
    });
    return { response: jsonRpcErrorResponse(200, -32603, message, id ?? null) };
  }

  /** A listen stream follows at most as many tasks as it may name resources. */
  private taskIdsProblem(taskIds: unknown): string | undefined {
    const max = this.uriLimits.maxSubscriptionsPerSession;
    return Array.isArray(taskIds) && taskIds.length > max ? wireMessages.tooManyListenTasks(max) : undefined;
  }

  /** A listen stream's resource URIs obey the same caps as a session's `resources/subscribe`. */
  private filterProblem(uris: readonly unknown[]): string | undefined {
    const { maxUriLength, maxSubscriptionsPerSession } = this.uriLimits;
    if (uris.length > maxSubscriptionsPerSession) return wireMessages.tooManyListenUris(maxSubscriptionsPerSession);
    if (uris.some((uri) => typeof uri === 'string' && uri.length > maxUriLength)) return wireMessages.listenUriTooLong(maxUriLength);
    return undefined;
  }
}
