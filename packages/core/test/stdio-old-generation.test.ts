import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createMcpApp } from '../src/index.js';
import { collectingServer, oldGenerationGain, onLines } from './support/old-generation.js';

// What a stdio call leaves behind must stay out of the old generation, even after a mark-compact
// has moved the connection's own structures there while calls were in flight. Two paths put each
// call's garbage there until the next mark-compact (the bench's RSS over a million calls rose and
// fell by tens of MB with it):
// - a `Set` of the ids in flight: once its table is old, V8 allocates every table it rebuilds
//   directly in the old generation (40 to 80 bytes a call here);
// - a number id written through a template: V8's number-to-string cache keeps each new id's text
//   through the scavenges, which promote it (about 24 bytes a call).
// in-flight-table.test.ts counts only what the scavenges promote; this counts every byte the old
// generation gains outside a mark-compact, allocated there directly or promoted.
describe('the old generation of a stdio connection under load', () => {
  const { server, collectNext } = collectingServer('old-generation');

  it('gains almost nothing per call after a mark-compact in mid-burst', async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const handle = createMcpApp(server).listenStdio({ stdin, stdout });
    // The client's own table of pending calls is a plain object, and it reads ids from the text.
    const waiting: Record<string, () => void> = Object.create(null);
    let answers = 0;
    onLines(stdout, (line) => {
      if (line.includes('"result":{"content":[{"type":"text","text":"ok"}]')) answers++;
      const id = /"id":(\d+)/.exec(line)?.[1] ?? '';
      const resolve = waiting[id];
      delete waiting[id];
      resolve?.();
    });
    // Ids far beyond the number-to-string cache's 16,384 entries, each new, as a long-lived client's are.
    let next = 1_000_000;
    const call = (method: string, params: object) => {
      const id = ++next;
      const line = `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":"${method}","params":${JSON.stringify(params)}}\n`;
      return { line, answered: new Promise<void>((resolve) => (waiting[JSON.stringify(id)] = resolve)) };
    };
    /** 64 calls written at once, as a pipe delivers them: all in flight together. */
    const burst = () => {
      const calls = Array.from({ length: 64 }, () => call('tools/call', { name: 'add', arguments: {} }));
      stdin.write(calls.map((c) => c.line).join(''));
      return Promise.all(calls.map((c) => c.answered));
    };
    try {
      const init = call('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } });
      stdin.write(init.line);
      await init.answered;
      stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
      for (let i = 0; i < 50; i++) await burst();
      collectNext();
      await burst();
      const bursts = 300;
      answers = 0;
      const { gained, scavenges } = await oldGenerationGain(async () => {
        for (let i = 0; i < bursts; i++) await burst();
      });
      expect(answers).toBe(bursts * 64);
      expect(scavenges).toBeGreaterThan(0);
      expect(gained / (bursts * 64)).toBeLessThan(12);
    } finally {
      await handle.close();
    }
  });
});
