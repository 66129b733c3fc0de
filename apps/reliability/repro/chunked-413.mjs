// Reproduction for figure 3 (chunked): a 100 MB body without Content-Length is read into a
// string up to the 4 MiB limit before the 413, costing far more time and memory than counting
// bytes. Run after `pnpm build`:  node --expose-gc apps/reliability/repro/chunked-413.mjs
// It starts the app's listenHttp in this process, streams a chunked body on a raw socket, and
// prints the time to the 413 and the peak growth of heapUsed + external while rejecting.
import { connect } from 'node:net';
import { createMcpApp, McpServer, Tool } from '@armature/core';

class Server {
  echo() {
    return 'ok';
  }
}
Tool({ description: 'echo' })(Server.prototype, 'echo', Object.getOwnPropertyDescriptor(Server.prototype, 'echo'));
McpServer({ name: 'repro', version: '1.0.0' })(Server);
const listener = await createMcpApp(Server).listenHttp({ port: 0 });
const url = new URL(listener.url);

function post() {
  return new Promise((resolve) => {
    const socket = connect({ host: url.hostname, port: Number(url.port) });
    const piece = Buffer.alloc(64 * 1024, 0x78);
    let t0 = 0;
    let sent = 0;
    let answered = false;
    socket.on('data', (d) => {
      if (answered) return;
      answered = true;
      resolve({ ms: performance.now() - t0, status: d.toString('latin1').split(' ')[1], sentMB: sent / 1e6 });
      socket.destroy();
    });
    socket.on('error', () =>
      answered ? undefined : resolve({ ms: Number.NaN, status: 'reset before the answer was read', sentMB: sent / 1e6 }),
    );
    socket.on('connect', () => {
      socket.write(
        `POST ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n`,
      );
      t0 = performance.now();
      const pump = () => {
        if (answered || socket.destroyed || sent >= 100e6) return;
        sent += piece.length;
        const ok = socket.write(Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')]));
        if (ok) setImmediate(pump);
        else socket.once('drain', () => setImmediate(pump));
      };
      pump();
    });
  });
}

const js = () => {
  const m = process.memoryUsage();
  return m.heapUsed + m.external;
};
await post(); // warm-up
for (let i = 0; i < 3; i++) {
  globalThis.gc?.();
  const base = js();
  let peak = base;
  const sampler = setInterval(() => {
    peak = Math.max(peak, js());
  }, 1);
  const r = await post();
  clearInterval(sampler);
  peak = Math.max(peak, js());
  console.log(
    `chunked 100 MB: HTTP ${r.status} after ${r.ms.toFixed(1)} ms (client had sent ${r.sentMB.toFixed(1)} MB), heap+external peak +${((peak - base) / 1048576).toFixed(1)} MB`,
  );
}
await listener.close();
