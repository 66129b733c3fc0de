import { PassThrough } from 'node:stream';
import v8 from 'node:v8';
import { describe, expect, it } from 'vitest';
import { InFlightTable } from '../src/context/in-flight-table.js';
import { createMcpApp } from '../src/index.js';
import { collectingServer, oldSpaceOf, onLines } from './support/old-generation.js';

describe('InFlightTable', () => {
  it('keeps the string "1" apart from the number 1, and counts its entries', () => {
    const table = new InFlightTable<{ n: number }>();
    table.set(1, { n: 1 });
    table.set('1', { n: 2 });
    table.set(-3, { n: 3 });
    table.set('__proto__', { n: 4 });
    table.set(2 ** 40, { n: 5 });
    expect(table.size).toBe(5);
    expect(table.get(1)).toEqual({ n: 1 });
    expect(table.get('1')).toEqual({ n: 2 });
    expect(table.get('__proto__')).toEqual({ n: 4 });
    expect(table.get(2 ** 40)).toEqual({ n: 5 });
    expect(table.get('constructor')).toBeUndefined();
    expect(table.get({})).toBeUndefined();
    table.set(1, { n: 6 });
    expect(table.size).toBe(5);
    expect(table.delete(1)).toBe(true);
    expect(table.delete(1)).toBe(false);
    expect(table.delete(null)).toBe(false);
    expect(table.has('1')).toBe(true);
    expect(table.has(1)).toBe(false);
    expect(
      table
        .values()
        .map((v) => v.n)
        .sort(),
    ).toEqual([2, 3, 4, 5]);
    table.clear();
    expect(table.size).toBe(0);
    expect(table.values()).toEqual([]);
  });
});

// What a call leaves behind must be garbage for the young generation's collections, even after a
// mark-compact has moved the connection's tables to the old generation while calls were in flight
// (a Map or Set there would keep, through the tables it rebuilds, every later call's objects alive
// until the next mark-compact: 260 to 265 bytes of every call promoted here, 20 with the table).
describe('a stdio connection under load', () => {
  const { server, collectNext } = collectingServer('memory');

  it.each([
    ['number', (n: number) => n],
    ['string', (n: number) => `r${n}`],
  ])('promotes almost nothing per call after a mark-compact in mid-burst (%s ids)', async (_kind, idOf) => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const handle = createMcpApp(server).listenStdio({ stdin, stdout });
    // The client's own table of pending calls is a plain object too, or it would be the one promoting.
    const waiting: Record<string, (line: string) => void> = Object.create(null);
    onLines(stdout, (line) => {
      const id = String((JSON.parse(line) as { id: unknown }).id);
      const resolve = waiting[id];
      delete waiting[id];
      resolve?.(line);
    });
    let next = 0;
    /** 64 calls written at once, as a pipe delivers them: all in flight together. */
    const burst = () => {
      const answers: Promise<string>[] = [];
      let lines = '';
      for (let i = 0; i < 64; i++) {
        const id = idOf(++next);
        answers.push(new Promise<string>((resolve) => (waiting[String(id)] = resolve)));
        lines += `${JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'add', arguments: {} } })}\n`;
      }
      stdin.write(lines);
      return Promise.all(answers);
    };
    const request = (method: string, params: object) =>
      new Promise<string>((resolve) => {
        const id = idOf(++next);
        waiting[String(id)] = resolve;
        stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
      });
    try {
      await request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } });
      stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
      for (let i = 0; i < 50; i++) await burst();
      expect(JSON.parse((await burst())[0] as string).result.content).toEqual([{ type: 'text', text: 'ok' }]);
      collectNext();
      await burst();
      const profiler = new v8.GCProfiler();
      profiler.start();
      const bursts = 300;
      for (let i = 0; i < bursts; i++) await burst();
      let promoted = 0;
      let scavenges = 0;
      for (const gcEvent of profiler.stop().statistics) {
        if (gcEvent.gcType !== 'Scavenge') continue;
        scavenges++;
        promoted += oldSpaceOf(gcEvent.afterGC) - oldSpaceOf(gcEvent.beforeGC);
      }
      expect(scavenges).toBeGreaterThan(0);
      expect(promoted / (bursts * 64)).toBeLessThan(80);
    } finally {
      await handle.close();
    }
  });
});
