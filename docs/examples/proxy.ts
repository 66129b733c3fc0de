import { fileURLToPath } from 'node:url';
import {
  Context,
  createMcpApp,
  type ExecutionContext,
  type Guard,
  McpServer,
  mount,
  remoteServer,
  type ServerEvent,
  Tool,
} from '@armature/core';
import { connectInMemory, expectEqual } from './support/check.js';

// #region gateway
/** An MCP server written with the official SDK (any server that speaks MCP on stdio will do). */
const notesServer = fileURLToPath(new URL('./proxy/notes-server.mjs', import.meta.url));

@McpServer({ name: 'gateway', version: '1.0.0' })
export class GatewayServer {
  @Tool({ description: 'Who the gateway thinks you are' })
  whoami(ctx: Context) {
    return `you are ${String(ctx.meta.team ?? 'nobody')}`;
  }
}

/** Only staff may use the notes (a real app reads its verified principal: ctx.principal). */
export class StaffOnly implements Guard {
  canActivate({ context }: ExecutionContext) {
    return context.meta.team === 'staff';
  }
}

export function gateway() {
  return createMcpApp(
    [
      GatewayServer,
      // An MCP server started as a child process and spoken to over stdio: its tools become notes_*.
      mount('notes', remoteServer({ command: process.execPath, args: [notesServer] }), { guards: [StaffOnly] }),
    ],
    { rateLimits: [{ limit: 100, windowMs: 60_000 }] }, // counted in front of the remote, as for any tool
  );
}
// #endregion

// #region http
export const overHttp = createMcpApp([
  mount(
    'weather',
    remoteServer({
      url: 'https://weather.internal/mcp',
      // The app's own credentials for the remote: the caller's token is never passed on.
      headers: { authorization: `Bearer ${process.env.WEATHER_TOKEN ?? 'dev-token'}` },
      timeoutMs: 30_000, // between two signs of life: each progress notification restarts it
      maxCallMs: 120_000, // the whole call, whatever progress the remote reports
    }),
  ),
]);
// #endregion

export const outputs: Record<string, string> = {
  tools: '["whoami", "notes_search"]',
  search: 'Buy milk\nMilk the cow',
  progress: '[1, 2, 3]',
  invalid: 'Input validation error: Invalid arguments for tool search: data/word must NOT have fewer than 2 characters',
  denied: 'Unknown tool: "notes_search". Available tools: whoami',
  event: "mount('notes'): connected to",
};

export async function main(): Promise<void> {
  const events: ServerEvent[] = [];
  const app = gateway();
  app.onEvent((event) => events.push(event));
  // #region ready
  await app.ready(); // connects the remote servers and lists their catalogues
  // #endregion
  const { client, close } = await connectInMemory(app);
  try {
    // #region call
    const staff = { team: 'staff' }; // what StaffOnly looks for
    const steps: number[] = [];
    const found = await client.callTool(
      { name: 'notes_search', arguments: { word: 'milk' }, _meta: staff },
      { onprogress: ({ progress }) => steps.push(progress) }, // the remote's progress, relayed
    );
    // found.content: [{ type: 'text', text: 'Buy milk\nMilk the cow' }]; steps: [1, 2, 3]
    // #endregion
    expectEqual(
      (await client.listTools({ _meta: staff })).tools.map((t) => t.name),
      JSON.parse(outputs.tools as string),
      'the gateway serves its own tools and the remote ones',
    );
    expectEqual((found.content as { text: string }[])[0]?.text, outputs.search, 'the remote answered');
    expectEqual(steps, JSON.parse(outputs.progress as string), 'its progress came through');
    const invalid = await client.callTool({ name: 'notes_search', arguments: { word: 'm' }, _meta: staff });
    expectEqual([invalid.isError, (invalid.content as { text: string }[])[0]?.text], [true, outputs.invalid], 'the remote validates');
    const denied = await client.callTool({ name: 'notes_search', arguments: { word: 'milk' } }).catch((error: Error) => error.message);
    expectEqual(denied, outputs.denied, "the gateway's guard stands in front of the remote");
    const up = events.find((event) => event.event === 'remote-up');
    expectEqual(up?.event === 'remote-up' && `${up.part}: connected to`, outputs.event, 'the remote-up event');
  } finally {
    await close();
    await app.close();
  }
  expectEqual(overHttp.definition.remoteParts.length, 1, 'an HTTP remote is declared the same way');
}
