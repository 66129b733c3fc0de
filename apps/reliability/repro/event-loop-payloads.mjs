// Reproduction for figure 7: tool arguments that block the event loop of an Armature server (the
// largest payload the default argument limits accept is validated in one synchronous stretch).
// Run after `pnpm build`:  node apps/reliability/repro/event-loop-payloads.mjs
// It serves one app over an in-process stdio pair (LineTransport, what listenStdio uses) and
// prints, per payload, how long one tools/call kept the event loop busy (max delay seen by
// perf_hooks.monitorEventLoopDelay while the call was answered). Target: <= 50 ms each.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { PassThrough } from 'node:stream';
import { createMcpApp, DEFAULT_ARGUMENT_LIMITS, McpServer, Tool } from '@armature/core';
import { Type } from 'class-transformer';
import { IsArray, IsInt, IsNumber, IsOptional, IsString, ValidateNested } from 'class-validator';

// Plain JavaScript: decorators applied by hand (design:type metadata as tsc would emit it).
class Item {}
IsInt()(Item.prototype, 'id');
IsString()(Item.prototype, 'name');
IsNumber()(Item.prototype, 'price');
IsArray()(Item.prototype, 'tags');
IsString({ each: true })(Item.prototype, 'tags');
class IngestInput {}
IsOptional()(IngestInput.prototype, 'items');
IsArray()(IngestInput.prototype, 'items');
ValidateNested({ each: true })(IngestInput.prototype, 'items');
Type(() => Item)(IngestInput.prototype, 'items');
Reflect.defineMetadata('design:type', Array, IngestInput.prototype, 'items');
class Server {
  ingest(input) {
    return `${input.items?.length ?? 0} items`;
  }
}
Tool({ description: 'ingest', input: () => IngestInput })(
  Server.prototype,
  'ingest',
  Object.getOwnPropertyDescriptor(Server.prototype, 'ingest'),
);
McpServer({ name: 'repro', version: '1.0.0' })(Server);

const toServer = new PassThrough();
const fromServer = new PassThrough();
createMcpApp(Server).listenStdio({ stdin: toServer, stdout: fromServer });
const waiting = new Map();
let buffer = '';
fromServer.on('data', (chunk) => {
  buffer += chunk;
  for (let i = buffer.indexOf('\n'); i !== -1; i = buffer.indexOf('\n')) {
    const message = JSON.parse(buffer.slice(0, i));
    buffer = buffer.slice(i + 1);
    waiting.get(message.id)?.(message);
  }
});
const call = (id, line) =>
  new Promise((resolve) => {
    waiting.set(id, resolve);
    toServer.write(`${line}\n`);
  });
await call(
  1,
  JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'r', version: '1' } },
  }),
);
toServer.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');

// The largest list of items the default argument limits accept: each item is 8 values.
const count = Math.min(DEFAULT_ARGUMENT_LIMITS.maxArrayLength, Math.floor((DEFAULT_ARGUMENT_LIMITS.maxNodes - 1) / 8));
const items = Array.from({ length: count }, (_, i) => `{"id":${i},"name":"item ${i}","price":${i}.5,"tags":["a","b","c"]}`).join(',');
const keys = `{${Array.from({ length: 32_000 }, (_, i) => `"k${i}":${i}`).join(',')}}`;
const depth = 2_000_000;
const payloads = [
  [`${count.toLocaleString('en-US')} DTO items, the most the default limits accept`, `{"items":[${items}]}`],
  // Controls: refused before JSON.parse since a9a98f8 (they blocked for seconds before it).
  ['object with 32,000 keys (0.4 MiB)', keys],
  [`arrays nested ${depth.toLocaleString('en-US')} deep (3.8 MiB)`, `{"items":${'['.repeat(depth)}${']'.repeat(depth)}}`],
];
const loop = monitorEventLoopDelay({ resolution: 2 });
loop.enable();
let id = 10;
for (const [name, args] of payloads) {
  for (let attempt = 0; attempt < 4; attempt++) {
    await new Promise((r) => setTimeout(r, 50));
    loop.reset();
    await new Promise((r) => setTimeout(r, 10)); // the histogram's first tick after a reset is its reference point
    const t0 = performance.now();
    const answer = await call(++id, `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"ingest","arguments":${args}}}`);
    const wall = performance.now() - t0;
    await new Promise((r) => setTimeout(r, 10));
    const text = answer.result?.content?.[0]?.text ?? JSON.stringify(answer.error);
    console.log(
      `${name}: answered in ${wall.toFixed(0)} ms, event loop blocked up to ${(loop.max / 1e6).toFixed(0)} ms -> ${text.split('\n').join(' ').slice(0, 90)}`,
    );
  }
}
process.exit(0);
