// The valve's policy on its own, with a stream whose congestion the test controls: sent at once
// while there is room; while congested, progress merged per token, log lines in order up to the
// cap, the surplus dropped, a call's waiting progress dropped with its answer.
import { describe, expect, it } from 'vitest';
import { type NotificationStream, NotificationValve } from '../src/context/notification-valve.js';

class FakeStream implements NotificationStream {
  congested = false;
  private listeners: Array<() => void> = [];
  onceRoom(listener: () => void): void {
    this.listeners.push(listener);
  }
  room(): void {
    this.congested = false;
    const listeners = this.listeners;
    this.listeners = [];
    for (const listener of listeners) listener();
  }
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

function setup(maxPending = 3) {
  const stream = new FakeStream();
  const valve = new NotificationValve(stream, maxPending);
  const sent: string[] = [];
  const note = (text: string) => () => {
    sent.push(text);
    return Promise.resolve();
  };
  return { stream, valve, sent, note };
}

describe('NotificationValve', () => {
  it('sends at once while the stream has room', async () => {
    const { valve, sent, note } = setup();
    await valve.send(note('log 1'));
    await valve.send(note('progress 1'), { token: 't', requestId: 1 });
    expect(sent).toEqual(['log 1', 'progress 1']);
  });

  it('merges progress per token and queues log lines while congested, then sends them in order', async () => {
    const { stream, valve, sent, note } = setup();
    stream.congested = true;
    const first = valve.send(note('progress 1'), { token: 't', requestId: 1 });
    void valve.send(note('log a'));
    const last = valve.send(note('progress 2'), { token: 't', requestId: 1 });
    expect(last).toBe(first); // one waiting entry, one promise
    expect([valve.pending, sent]).toEqual([2, []]);
    stream.room();
    await last;
    expect(sent).toEqual(['log a', 'progress 2']);
  });

  it('drops what comes past maxPending, and resolves the dropped at once', async () => {
    const { stream, valve, sent, note } = setup(2);
    stream.congested = true;
    void valve.send(note('log 1'));
    void valve.send(note('log 2'));
    await valve.send(note('log 3')); // dropped: resolves without the stream having room
    expect(valve.dropped).toBe(1);
    stream.room();
    await turn();
    expect(sent).toEqual(['log 1', 'log 2']);
  });

  it("drops a call's waiting progress when the call is answered", async () => {
    const { stream, valve, sent, note } = setup();
    stream.congested = true;
    const waiting = valve.send(note('progress of 7'), { token: 'p7', requestId: 7 });
    void valve.send(note('progress of 8'), { token: 'p8', requestId: 8 });
    valve.answered(7);
    await waiting;
    stream.room();
    await turn();
    expect(sent).toEqual(['progress of 8']);
  });

  it('sends at most 32 per turn of the event loop; the rest follow on the next turns, in order', async () => {
    const { valve, sent, note } = setup(1_000);
    const all = Array.from({ length: 40 }, (_, i) => valve.send(note(`log ${i + 1}`)));
    expect(sent.length).toBe(32);
    await Promise.all(all);
    expect(sent).toEqual(Array.from({ length: 40 }, (_, i) => `log ${i + 1}`));
  });
});
