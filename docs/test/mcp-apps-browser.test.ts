import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createMcpApp } from '@armature/core';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { type Browser, chromium, type Page } from 'playwright-core';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CounterServer } from '../examples/mcp-apps.js';
import { DOCS_ROOT } from './support/markdown-includes.js';

// The MCP Apps check (issue 23): Debian's Chromium loads a host page built with the official app
// bridge (@modelcontextprotocol/ext-apps), which renders the guide's example app from the server's
// ui:// resource; a click in the app makes a tools/call through the host to the server over HTTP
// on 127.0.0.1, and the app shows the answer. A client without the extension sees the plain tool.
const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-sync',
];
const HOST_ENTRY = join(DOCS_ROOT, 'test', 'support', 'mcp-apps-host.ts');
const WAIT_MS = 10_000;

let server: Server;
let origin: string;
let browser: Browser;
let page: Page;
const problems: string[] = [];

/** The host page's script: the host module and what it imports (client, app bridge), bundled for the browser by Vite. */
async function bundleHost(): Promise<string> {
  const built = await build({
    configFile: false,
    logLevel: 'warn',
    root: DOCS_ROOT,
    build: { write: false, minify: false, lib: { entry: HOST_ENTRY, formats: ['es'], fileName: 'host' } },
  });
  const [output] = Array.isArray(built) ? built : [built];
  const chunk = (output as { output: { type: string; code?: string }[] }).output.find((file) => file.type === 'chunk');
  if (!chunk?.code) throw new Error('mcp-apps-browser: Vite built no host script');
  return chunk.code;
}

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `mcp-apps-browser: no Chromium at ${CHROMIUM}. Fix: apt-get update && apt-get install -y chromium (.ci/run does it when missing).`,
    );
  }
  const script = await bundleHost();
  const mcp = createMcpApp(CounterServer).httpHandler();
  server = createServer((req, res) => {
    if (req.url?.startsWith('/mcp')) return void mcp(req, res);
    if (req.url === '/host.js') return void res.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
    res
      .writeHead(200, { 'content-type': 'text/html' })
      .end(
        '<!doctype html><html><head><meta charset="utf-8"><title>host</title></head><body><script type="module" src="/host.js"></script></body></html>',
      );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  page = await browser.newPage();
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  await page.goto(origin);
  await page.waitForFunction(() => 'armatureHost' in window, undefined, { timeout: WAIT_MS });
}, 90_000);

afterAll(async () => {
  await browser?.close();
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
});

/** A client without the MCP Apps extension, over HTTP to the same server. */
async function plainClient(): Promise<Client> {
  const client = new Client({ name: 'plain', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', origin)));
  return client;
}

describe('an MCP App in Chromium, through a host built with the official app bridge', () => {
  it('renders the app from the ui:// resource and shows the tool result the host hands it', async () => {
    const answer = await page.evaluate(
      (args) => (window as unknown as { armatureHost: (tool: string, a: object) => Promise<unknown> }).armatureHost('add', args),
      { by: 5 },
    );
    expect(answer).toEqual({
      tools: [
        { name: 'add', visibility: undefined },
        { name: 'reset', visibility: ['app'] },
      ],
      result: expect.objectContaining({ structuredContent: { total: 5 } }),
    });
    const app = page.frameLocator('#app');
    await app.locator('#total', { hasText: /^5$/ }).waitFor({ timeout: WAIT_MS });
  });

  it('a click in the app calls the tool through the host and the server; the app shows the answer', { timeout: 3 * WAIT_MS }, async () => {
    const app = page.frameLocator('#app');
    await app.locator('#add:not([disabled])').click({ timeout: WAIT_MS });
    await app.locator('#total', { hasText: /^6$/ }).waitFor({ timeout: WAIT_MS });
    // The server's own state moved: another client's call continues from the app's.
    const client = await plainClient();
    try {
      expect((await client.callTool({ name: 'add', arguments: { by: 1 } })).structuredContent).toEqual({ total: 7 });
    } finally {
      await client.close();
    }
  });

  it("the app calls its app-only tool (visibility ['app']) through the host", async () => {
    const app = page.frameLocator('#app');
    await app.locator('#reset').click({ timeout: WAIT_MS });
    await app.locator('#total', { hasText: /^0$/ }).waitFor({ timeout: WAIT_MS });
    expect(problems).toEqual([]);
  });

  it('a client without the extension sees the plain tool, and not the app-only one', async () => {
    const client = await plainClient();
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => [t.name, t._meta])).toEqual([['add', undefined]]);
      await expect(client.callTool({ name: 'reset', arguments: {} })).rejects.toThrow(/Unknown tool/i);
    } finally {
      await client.close();
    }
  });
});
