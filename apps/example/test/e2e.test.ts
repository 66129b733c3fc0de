/**
 * End to end: the BUILT server (`dist/main.js`) in its own process, driven by the official
 * clients (v1 and v2 SDK) over stdio and Streamable HTTP, and by the MCP Inspector CLI. Every
 * process started here is killed in afterAll.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { decodePng } from './support/png.js';
import {
  assertBuilt,
  capture,
  type HttpExample,
  killStarted,
  MAIN,
  runInspector,
  spawnExample,
  startHttpExample,
  waitForExit,
} from './support/processes.js';
import { httpV1, httpV2, type Session, stdioV1, stdioV2, type ToolResult } from './support/sessions.js';
import { lastToolCall, type WireMessage } from './support/traffic.js';

const TOOL_NAMES = ['add', 'count_down', 'render_swatch', 'count_words', 'get_price', 'quote_order'];

let http: HttpExample;

beforeAll(async () => {
  assertBuilt();
  http = await startHttpExample();
});

afterAll(async () => {
  await http?.stop().catch(() => undefined);
  killStarted();
});

function textOf(result: ToolResult): string {
  return result.content.map((block) => block.text ?? `[${block.type}]`).join('\n');
}

const setups = [
  { name: 'stdio, v2 client', connect: stdioV2, version: '2025-11-25', session: false },
  { name: 'stdio, v1 client', connect: stdioV1, version: undefined, session: false },
  { name: 'HTTP, v1 client', connect: () => httpV1(http.url), version: '2025-11-25', session: true },
  { name: 'HTTP, v2 client, default mode', connect: () => httpV2(http.url, false), version: '2025-11-25', session: true },
  { name: 'HTTP, v2 client, auto negotiation', connect: () => httpV2(http.url, true), version: '2026-07-28', session: false },
];

describe.each(setups)('$name', (setup) => {
  let s: Session;

  beforeAll(async () => {
    s = await setup.connect();
  });
  afterAll(async () => {
    await s?.close();
  });

  it(`speaks ${setup.version ?? '2025-11-25'}${setup.session ? ' with an Mcp-Session-Id' : ''}`, () => {
    expect(s.protocolVersion()).toBe(setup.version);
    if (setup.session) expect(s.sessionId()).toMatch(/^[0-9a-f-]{36}$/);
    else expect(s.sessionId()).toBeUndefined();
  });

  it('lists the example tools', async () => {
    expect(await s.listToolNames()).toEqual(TOOL_NAMES);
  });

  it('calls add', async () => {
    const result = await s.callTool('add', { a: 2, b: 3 });
    expect(result.content).toEqual([{ type: 'text', text: '5' }]);
    expect(result.isError).toBeFalsy();
  });

  it('answers bad arguments with the validation text', async () => {
    const result = await s.callTool('add', { a: 'two', b: 3 });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe('Invalid arguments for tool "add":\na: must be number');
  });

  it('returns the swatch as a PNG image block', async () => {
    const result = await s.callTool('render_swatch', { color: '#336699', size: 2 });
    const picture = result.content[1];
    expect(picture).toMatchObject({ type: 'image', mimeType: 'image/png' });
    const png = decodePng(Buffer.from(picture?.data ?? '', 'base64'));
    expect(png).toMatchObject({ width: 2, height: 2 });
    expect(png.pixels).toEqual(Array.from({ length: 4 }, () => [0x33, 0x66, 0x99]));
  });

  it('returns the output DTO as structuredContent', async () => {
    const result = await s.callTool('get_price', { sku: 'TEA-001', currency: 'USD' });
    const expected = { sku: 'TEA-001', name: 'Sencha green tea, 100 g', currency: 'USD', unitPrice: 935, inStock: true };
    expect(result.structuredContent).toEqual(expected);
    expect(JSON.parse(textOf(result))).toEqual(expected);
  });

  it('sends progress notifications carrying the request progress token', async () => {
    const seen: number[] = [];
    const result = await s.callTool('count_down', { steps: 3, delayMs: 50 }, { onprogress: (p) => seen.push(p.progress) });
    expect(textOf(result)).toBe('Lift-off after 3 steps');
    const token = lastToolCall(s.traffic, 'count_down').params?._meta?.progressToken;
    expect(token).toBeDefined();
    expect(s.traffic.progressFor(token)).toEqual([
      { progress: 0, total: 3, message: '3 to go' },
      { progress: 1, total: 3, message: '2 to go' },
      { progress: 2, total: 3, message: '1 to go' },
    ]);
    // The callback sees them too, except (rarely, over stdio) one read in the same chunk as the
    // response: the SDK clients dispatch notifications a microtask late (typescript-sdk#2580).
    expect(seen.length).toBeGreaterThan(0);
    expect(seen).toEqual([0, 1, 2].slice(0, seen.length));
  });

  it('cancels: the aborted call rejects, no progress follows, and the server keeps serving', async () => {
    const abort = new AbortController();
    const call = s.callTool('count_down', { steps: 50, delayMs: 100 }, { signal: abort.signal, onprogress: () => abort.abort() });
    await expect(call).rejects.toThrow(/aborted/i);
    const request = lastToolCall(s.traffic, 'count_down');
    const token = request.params?._meta?.progressToken;
    const progressAtAbort = s.traffic.progressFor(token).length;
    // Five steps' worth of time: a server that kept counting would have sent four or five more by
    // now. One more may be on its way already: on a loaded machine the server can finish a 100 ms
    // step before it reads the cancellation, and that is not a server that kept counting.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(s.traffic.progressFor(token).length).toBeLessThanOrEqual(progressAtAbort + 1);
    expect(s.traffic.received.filter((m: WireMessage) => m.id === request.id && m.result)).toEqual([]);
    await s.stillServing();
    expect((await s.callTool('add', { a: 1, b: 1 })).content).toEqual([{ type: 'text', text: '2' }]);
  });
});

describe('stdio process', () => {
  it('writes only JSON-RPC lines to stdout, talks to humans on stderr, and exits when stdin closes', async () => {
    const child = spawnExample(['--stdio']);
    const stdout = capture(child.stdout);
    const stderr = capture(child.stderr);
    const send = (message: object | string) => child.stdin?.write(`${typeof message === 'string' ? message : JSON.stringify(message)}\n`);
    const lines = () =>
      stdout
        .text()
        .split('\n')
        .filter((line) => line !== '');
    const replied = (id: number | null) => lines().some((line) => (JSON.parse(line) as WireMessage).id === id);

    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    await vi.waitFor(() => expect(replied(1)).toBe(true), { timeout: 10_000 });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'count_down', arguments: { steps: 2, delayMs: 0 }, _meta: { progressToken: 'raw-1' } },
    });
    send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'add', arguments: { a: 'x', b: 1 } } });
    send('this line is not JSON');
    send({ jsonrpc: '2.0', id: 4, method: 'ping' });
    await vi.waitFor(() => expect([2, 3, 4, null].every(replied)).toBe(true), { timeout: 10_000 });
    child.stdin?.end();
    expect(await waitForExit(child, 5_000)).toBe(0);

    const messages = lines().map((line) => JSON.parse(line) as WireMessage);
    for (const message of messages) expect(message.jsonrpc).toBe('2.0');
    expect(stdout.text().endsWith('\n')).toBe(true);
    expect(messages.filter((m) => m.method === 'notifications/progress').map((m) => m.params)).toEqual([
      { progressToken: 'raw-1', progress: 0, total: 2, message: '2 to go' },
      { progressToken: 'raw-1', progress: 1, total: 2, message: '1 to go' },
    ]);
    expect(messages.find((m) => m.id === 2)?.result).toEqual({ content: [{ type: 'text', text: 'Lift-off after 2 steps' }] });
    expect(messages.find((m) => m.id === 3)?.result).toMatchObject({ isError: true });
    expect(messages.find((m) => m.id === null)?.error).toEqual({ code: -32700, message: 'Parse error: the line is not valid JSON' });
    expect(messages.some((m) => m.method === 'notifications/message')).toBe(true);
    expect(stderr.text()).toContain('armature-example: serving MCP over stdio\n');
  });

  it('refuses unknown arguments with the usage on stderr and exit code 1', async () => {
    const child = spawnExample(['--bogus']);
    const stdout = capture(child.stdout);
    const stderr = capture(child.stderr);
    expect(await waitForExit(child, 10_000)).toBe(1);
    expect(stdout.text()).toBe('');
    expect(stderr.text()).toMatch(/^armature-example: unexpected arguments: --bogus\n\nUsage: node dist\/main\.js \[--stdio \| --http\]/);
  });
});

describe('HTTP process', () => {
  it('prints the URL with the port PORT=0 picked, and how to point the Inspector CLI at it', () => {
    expect(http.url).toMatch(/^http:\/\/127\.0\.0\.1:[1-9]\d*\/mcp$/);
    expect(http.stdout()).toBe(
      `armature-example: MCP endpoint at ${http.url}\nTry it: npx @modelcontextprotocol/inspector --cli ${http.url} --transport http --method tools/list\nOr point any MCP client (Streamable HTTP) at that URL. Ctrl+C stops the server.\n`,
    );
  });
});

describe('MCP Inspector CLI 1.0.3', () => {
  const stdio = ['node', MAIN, '--method'];
  // Inspector options go before `--`; the server command's own flag after it.
  it.concurrent('lists the tools over stdio', async () => {
    const listed = (await runInspector([...stdio, 'tools/list', '--', '--stdio'])) as { tools: Array<{ name: string }> };
    expect(listed.tools.map((tool) => tool.name)).toEqual(TOOL_NAMES);
  });

  it.concurrent('calls add over stdio', async () => {
    const result = await runInspector([...stdio, 'tools/call', '--tool-name', 'add', '--tool-arg', 'a=2', 'b=3', '--', '--stdio']);
    expect(result).toEqual({ content: [{ type: 'text', text: '5' }] });
  });

  it.concurrent('lists the tools over HTTP', async () => {
    const listed = (await runInspector([http.url, '--method', 'tools/list'])) as { tools: Array<{ name: string }> };
    expect(listed.tools.map((tool) => tool.name)).toEqual(TOOL_NAMES);
  });

  it.concurrent('calls get_price over HTTP and gets its structuredContent', async () => {
    const result = await runInspector([
      http.url,
      '--transport',
      'http',
      '--method',
      'tools/call',
      '--tool-name',
      'get_price',
      '--tool-arg',
      'sku=POT-001',
      'currency=GBP',
    ]);
    expect(result).toMatchObject({
      structuredContent: { sku: 'POT-001', name: 'Cast-iron teapot', currency: 'GBP', unitPrice: 4165, inStock: true },
    });
  });
});
