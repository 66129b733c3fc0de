// Import @armature/core first: it loads reflect-metadata before any decorated class is evaluated.
import { Context, createMcpApp, McpServer, Tool } from '@armature/core';

@McpServer({ name: 'jobs', version: '1.0.0' })
export class JobsServer {
  @Tool({ description: 'Run the nightly job' })
  async runJob(ctx: Context) {
    console.log('job started'); // over stdio, console.log goes to stderr
    await new Promise((resolve) => setTimeout(resolve, Number(process.env.JOB_MS ?? 10)));
    return ctx.signal.aborted ? 'stopped' : 'done';
  }
}

// SIGTERM / SIGINT: stop accepting, let running calls finish (up to 15 s), close, exit.
const app = createMcpApp(JobsServer).enableShutdownHooks({ deadlineMs: 15_000 });

if (process.argv.includes('--http')) {
  const { url } = await app.listenHttp({ host: process.env.HOST ?? '127.0.0.1', port: Number(process.env.PORT ?? 3000) });
  console.error(`jobs: MCP endpoint at ${url}`);
} else {
  app.listenStdio();
}
