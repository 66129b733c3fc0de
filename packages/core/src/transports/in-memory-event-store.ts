import { randomUUID } from 'node:crypto';
import type { EventStore, JSONRPCMessage } from '@modelcontextprotocol/server';

/**
 * Keeps the recent SSE events of 2025-11-25 sessions in memory so a client that lost its stream
 * can resume with `Last-Event-ID` (spec: Streamable HTTP, resumability; SEP-1699 polling). Bounded:
 * at most `maxEvents` in all, the oldest dropped first. Single-process only: behind a load balancer
 * use a shared store.
 */
export class InMemoryEventStore implements EventStore {
  private readonly events = new Map<string, { streamId: string; message: JSONRPCMessage }>();

  constructor(private readonly maxEvents = 10_000) {}

  async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    const eventId = `${streamId}_${Date.now()}_${randomUUID().slice(0, 8)}`;
    this.events.set(eventId, { streamId, message });
    if (this.events.size > this.maxEvents) {
      const oldest = this.events.keys().next().value;
      if (oldest !== undefined) this.events.delete(oldest);
    }
    return eventId;
  }

  async getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    return this.events.get(eventId)?.streamId;
  }

  async replayEventsAfter(
    lastEventId: string,
    { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> },
  ): Promise<string> {
    const last = this.events.get(lastEventId);
    if (!last) return '';
    let after = false;
    for (const [eventId, event] of this.events) {
      if (eventId === lastEventId) {
        after = true;
        continue;
      }
      if (after && event.streamId === last.streamId) await send(eventId, event.message);
    }
    return last.streamId;
  }
}
