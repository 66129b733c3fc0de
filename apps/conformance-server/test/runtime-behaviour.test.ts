/**
 * What the conformance server does over time, like the suite's reference server: the watched
 * resource changes and subscribers hear of it; the dynamic tool, resource and prompt appear after a
 * delay with list_changed notifications. The app runs in process with short periods, served over
 * HTTP and checked through the v1 and v2 clients.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type ConformanceApp, createConformanceApp } from '../src/app.js';
import { connectV1, connectV2, type Session } from './support/clients.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each([
  { name: 'v1 client (sdk 1.32.2)', connect: connectV1 },
  { name: 'v2 client (client 2.4.0)', connect: (url: string) => connectV2(url, false) },
])('$name, 2025-11-25 over HTTP', ({ connect }) => {
  let server: ConformanceApp;
  let s: Session;

  beforeAll(async () => {
    server = createConformanceApp({ dynamicDelayMs: 1500, watchedIntervalMs: 200 });
    const { url } = await server.app.listenHttp({ port: 0, eventStore: true });
    s = await connect(url);
  });
  afterAll(async () => {
    await s?.close();
    await server?.close();
  });

  it('test://watched-resource: subscribers get notifications/resources/updated and read new contents; unsubscribing stops them', async () => {
    const updates = () => s.notifications.filter((n) => n.method === 'notifications/resources/updated');
    const first = (await s.readResource('test://watched-resource')).contents[0]?.text;
    await sleep(500);
    expect(updates()).toEqual([]); // nothing before subscribing
    expect(await s.subscribe('test://watched-resource')).toEqual({});
    await vi.waitFor(() => expect(updates().length).toBeGreaterThanOrEqual(2), { timeout: 10_000 });
    expect(updates()[0]?.params).toEqual({ uri: 'test://watched-resource' });
    expect((await s.readResource('test://watched-resource')).contents[0]?.text).not.toBe(first);
    expect(await s.unsubscribe('test://watched-resource')).toEqual({});
    // An update already on its way may still land (late, on a busy machine): let it, then count.
    await sleep(1_000);
    const after = updates().length;
    await sleep(600);
    expect(updates().length).toBe(after);
  });

  it('test_dynamic_tool, test://dynamic-resource and test_dynamic_prompt appear with list_changed notifications', async () => {
    await vi.waitFor(
      () => {
        const methods = s.notifications.map((n) => n.method);
        expect(methods).toContain('notifications/tools/list_changed');
        expect(methods).toContain('notifications/resources/list_changed');
        expect(methods).toContain('notifications/prompts/list_changed');
      },
      { timeout: 5000 },
    );
    expect((await s.listTools()).map((t) => t.name)).toContain('test_dynamic_tool');
    expect((await s.callTool('test_dynamic_tool')).content).toEqual([{ type: 'text', text: 'This is a dynamically enabled tool.' }]);
    expect((await s.listResources()).map((r) => r.uri)).toContain('test://dynamic-resource');
    expect((await s.readResource('test://dynamic-resource')).contents[0]?.text).toBe('This is a dynamically enabled resource.');
    expect((await s.listPrompts()).map((p) => p.name)).toContain('test_dynamic_prompt');
  });
});

describe('before the dynamic delay', () => {
  it('the dynamic tool, resource and prompt are not listed', async () => {
    const server = createConformanceApp({ dynamicDelayMs: false, watchedIntervalMs: false });
    const { url } = await server.app.listenHttp({ port: 0 });
    const s = await connectV1(url);
    try {
      expect((await s.listTools()).map((t) => t.name)).not.toContain('test_dynamic_tool');
      expect((await s.listResources()).map((r) => r.uri)).not.toContain('test://dynamic-resource');
      expect((await s.listPrompts()).map((p) => p.name)).not.toContain('test_dynamic_prompt');
    } finally {
      await s.close();
      await server.close();
    }
  });
});
