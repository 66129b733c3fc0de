// The SDK v2 for 2026-07-28 over HTTP: `createMcpHandler(factory)` mounted with `toNodeHandler` on
// node:http, 127.0.0.1, port 0. Prints `listening <url>` on stdout, stops on SIGTERM.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { createSdkServer } from './sdk-v2-app.js';

const handler = createMcpHandler(() => createSdkServer());
const node = toNodeHandler(handler);
const http = createServer((req, res) => {
  void node(req, res);
});
http.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp\n`);
});
process.once('SIGTERM', () => void handler.close().then(() => process.exit(0)));
