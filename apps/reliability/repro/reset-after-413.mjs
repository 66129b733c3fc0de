// Reproduction for figures 3 and 8: a body over the limit is answered 413, but the server closes
// the connection at once while the body is still arriving, so the kernel resets it and a client
// still writing often gets EPIPE/ECONNRESET instead of the 413 (RFC 9112 section 9.6, "lingering
// close"). Run after `pnpm build`:  node apps/reliability/repro/reset-after-413.mjs
// It POSTs bodies of 5 MB and 100 MB with node:http (a plain client: it writes the whole body,
// reading the answer as it comes) to listenHttp, 20 times each, and counts what the client saw.
import { fork } from 'node:child_process';
import { request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { createMcpApp, McpServer, Tool } from '@armature/core';

if (process.argv[2] === 'server') {
  // The server runs in its own process, as in production (in one process the client would read
  // the answer before the server's close reaches it).
  class Server {
    echo() {
      return 'ok';
    }
  }
  Tool({ description: 'echo' })(Server.prototype, 'echo', Object.getOwnPropertyDescriptor(Server.prototype, 'echo'));
  McpServer({ name: 'repro', version: '1.0.0' })(Server);
  const listener = await createMcpApp(Server).listenHttp({ port: 0 });
  process.send(listener.url);
  process.on('disconnect', () => process.exit(0));
} else {
  const child = fork(fileURLToPath(import.meta.url), ['server']);
  const url = new URL(await new Promise((resolve) => child.once('message', resolve)));
  try {
    for (const size of [5 * 1024 * 1024, 100 * 1000 * 1000]) {
      const seen = {};
      for (let i = 0; i < 20; i++) {
        const outcome = await post(url, size);
        seen[outcome] = (seen[outcome] ?? 0) + 1;
      }
      console.log(`${(size / 1e6).toFixed(1)} MB body with Content-Length, 20 tries: ${JSON.stringify(seen)}`);
    }
  } finally {
    child.kill();
  }
}

function post(url, size) {
  return new Promise((resolve) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        agent: false,
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'content-length': size },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(`HTTP ${res.statusCode}`));
        res.on('error', () => resolve(`HTTP ${res.statusCode}`));
      },
    );
    req.on('error', (error) => resolve(error.code));
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    let sent = 0;
    const pump = () => {
      while (sent < size) {
        const piece = chunk.subarray(0, Math.min(chunk.length, size - sent));
        sent += piece.length;
        if (!req.write(piece)) return void req.once('drain', pump);
      }
      req.end();
    };
    pump();
  });
}
