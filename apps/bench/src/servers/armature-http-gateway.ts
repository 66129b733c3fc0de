// An Armature gateway over HTTP on 127.0.0.1, port 0, in front of the bench's Armature HTTP server
// (started here as its own process): the gateway's only part is that server, mounted as a remote
// server under its own names. Prints `listening <url>` on stdout, stops both on SIGTERM.
import { createMcpApp, remoteServer } from '@armature/core';
import { spawnHttpServer } from '../drivers/http-2026-client.js';
import { SERVER_INFO } from './bench-tools.js';

const remote = await spawnHttpServer('armature-http');
// The server info of the server it proxies: the two sides then answer the same bytes.
const app = createMcpApp(remoteServer({ url: remote.url }), { logger: false, info: SERVER_INFO });
const listener = await app.listenHttp({ port: 0 });
process.stdout.write(`listening ${listener.url}\n`);
process.once('SIGTERM', () => void Promise.allSettled([app.close(), remote.close()]).then(() => process.exit(0)));
