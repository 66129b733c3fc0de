import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import type { InstanceLeases, SharedEventStore } from '../../state/app-state.js';

/** How long an instance's lease lasts without renewal (it renews every second). */
export const LEASE_MS = 3_000;
const POLL_MS = 250;

/** What a client waiting on a stream whose instance died gets instead of its response. */
export const ORPHANED_MESSAGE =
  'Internal error: the server instance running this request stopped before it answered; send the request again';

/**
 * Which instance answers each POST stream of a shared session, so that a client resuming the stream
 * on another instance after that one died is told so, instead of waiting for its request timeout.
 * The requests of a POST are announced (`expect`) just before the transport opens its stream; the
 * first event stored on a new stream claims it for them.
 */
export class StreamClaims {
  private readonly expected: (string | number)[][] = [];

  constructor(
    private readonly instance: string,
    private readonly store: SharedEventStore,
    private readonly leases: InstanceLeases,
  ) {}

  /** The request ids of the POST about to be handled (they get one new stream). */
  expect(requestIds: (string | number)[]): void {
    this.expected.push(requestIds);
  }

  /** Forgets an announced POST that opened no stream (the transport refused it). */
  withdraw(requestIds: (string | number)[]): void {
    const at = this.expected.indexOf(requestIds);
    if (at >= 0) this.expected.splice(at, 1);
  }

  /** Claims `streamId` (a new stream) for the oldest announced POST. */
  async claim(streamId: string): Promise<void> {
    const requestIds = this.expected.shift();
    if (requestIds) await this.claimFor(streamId, requestIds);
  }

  /**
   * Claims `streamId` for `requestIds` (a POST whose requests Armature answers itself), storing
   * `first` as its first events in the same step; their ids.
   */
  claimFor(streamId: string, requestIds: readonly (string | number)[], first: readonly JSONRPCMessage[] = []): Promise<string[]> {
    return this.store.storeEvents(streamId, first, { owner: this.instance, requestIds });
  }

  /**
   * Follows a resumed stream that another instance answers: `more` sends the events stored since,
   * until every claimed request is answered, or the claiming instance's lease lapses (then the
   * error responses it still owes are returned), or one lease period passed with it alive.
   */
  async owed(streamId: string, answered: ReadonlySet<string | number>, more: () => Promise<void>): Promise<JSONRPCMessage[]> {
    const claim = await this.store.streamClaim(streamId);
    if (!claim || claim.owner === this.instance) return [];
    const deadline = Date.now() + LEASE_MS;
    for (;;) {
      const unanswered = claim.requestIds.filter((id) => !answered.has(id));
      if (unanswered.length === 0) return [];
      if (!(await this.leases.alive(claim.owner))) {
        return unanswered.map((id) => ({ jsonrpc: '2.0', id, error: { code: -32603, message: ORPHANED_MESSAGE } }) as JSONRPCMessage);
      }
      if (Date.now() >= deadline) return [];
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      await more();
    }
  }
}
