// The SDK v2 for 2025-11-25 sessions over HTTP, wired as its documentation wires a sessionful
// node:http server: the Host and Origin guards, then one McpServer and one
// NodeStreamableHTTPServerTransport per session (`sessionIdGenerator: randomUUID`), kept in a map
// by the id `onsessioninitialized` gives, an unknown id answered 404 (the SDK keeps no registry).
// 127.0.0.1, port 0: prints `listening <url>` on stdout, stops on SIGTERM.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { localhostHostValidation, localhostOriginValidation, NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import { createSdkServer } from './sdk-v2-app.js';

const validateHost = localhostHostValidation();
const validateOrigin = localhostOriginValidation();
const sessions = new Map<string, NodeStreamableHTTPServerTransport>();

const http = createServer(async (req, res) => {
  if (!validateHost(req, res) || !validateOrigin(req, res)) return;
  const id = req.headers['mcp-session-id'];
  if (typeof id === 'string') {
    const transport = sessions.get(id);
    if (!transport) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }));
      return;
    }
    await transport.handleRequest(req, res);
    return;
  }
  // No session yet: a new server and transport; the transport itself refuses anything but initialize.
  const transport: NodeStreamableHTTPServerTransport = new NodeStreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: (sessionId) => {
      sessions.set(sessionId, transport);
    },
  });
  transport.onclose = () => {
    if (transport.sessionId) sessions.delete(transport.sessionId);
  };
  await createSdkServer().connect(transport);
  await transport.handleRequest(req, res);
});
http.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp\n`);
});
process.once('SIGTERM', () => {
  void Promise.allSettled([...sessions.values()].map((transport) => transport.close())).then(() => process.exit(0));
});
