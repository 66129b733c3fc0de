// Import @armature/core first: it loads reflect-metadata before any decorated class is evaluated.
import { createMcpApp } from '@armature/core';
import { GreeterServer } from './greeter.js';

const app = createMcpApp(GreeterServer);

if (process.argv.includes('--http')) {
  const { url } = await app.listenHttp({ port: Number(process.env.PORT ?? 3000) });
  console.error(`greeter: MCP endpoint at ${url}`);
} else {
  app.listenStdio();
}
