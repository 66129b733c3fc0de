// The HTTP scenarios' sides: each server in its own process on 127.0.0.1, a raw client with a pool
// of keep-alive connections per side, the same answers checked before anything is timed.
import { spawnHttpServer } from '../drivers/http-2026-client.js';
import type { Runtime } from '../drivers/runtime-command.js';
import { pipelined } from '../drivers/stdio-child.js';
import type { Opened, SideName } from '../harness.js';
import { SIDE_TITLES } from '../harness.js';
import type { Settings } from '../settings.js';
import { addArgs, ok } from './tool-calls.js';

/** What both clients offer a scenario. */
export interface Caller {
  callTool(name: string, args: Record<string, unknown>): Promise<unknown>;
  close(): void | Promise<void>;
}

/** An entry of dist/servers and what it adds to the environment. */
export interface HttpServerEntry {
  entry: string;
  env?: Record<string, string>;
  /** What runs it. Default Node. */
  runtime?: Runtime;
}

/** The answers of `tool(args)` from every side (or the sides `only` names), each with the side's title. */
export type AnswersOf = (tool: string, args: Record<string, unknown>, only?: readonly SideName[]) => Promise<[string, unknown][]>;

/**
 * Starts `servers` (one process per side), connects a client to each, runs `check` before anything
 * is timed, then warms every side up; each side's sample is tools/call `add` over the client's pool.
 */
export async function openHttpSides(
  settings: Settings,
  servers: Partial<Record<SideName, HttpServerEntry>>,
  connect: (url: string) => Promise<Caller>,
  check: (answers: AnswersOf) => Promise<void>,
): Promise<Opened> {
  const names = Object.keys(servers) as SideName[];
  const started = await Promise.allSettled(
    names.map((name) => {
      const { entry, env, runtime } = servers[name] as HttpServerEntry;
      return spawnHttpServer(entry, env, runtime);
    }),
  );
  const running = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const clients = new Map<SideName, Caller>();
  const close = async () => {
    await Promise.allSettled([...clients.values()].map((client) => client.close()));
    await Promise.allSettled(running.map((server) => server.close()));
  };
  try {
    for (const s of started) if (s.status === 'rejected') throw s.reason;
    for (const [i, name] of names.entries()) clients.set(name, await connect(running[i]?.url as string));
    await check(async (tool, args, only = names) => {
      const answers: [string, unknown][] = [];
      for (const name of only) answers.push([SIDE_TITLES[name], await (clients.get(name) as Caller).callTool(tool, args)]);
      return answers;
    });
    const run = (client: Caller, count: number) =>
      pipelined(count, settings.httpConnections, (i) => client.callTool('add', addArgs(i)).then(ok));
    for (const client of clients.values()) await run(client, Math.min(settings.warmupCalls, settings.httpCalls));
    const sides: Opened['sides'] = {};
    for (const [name, client] of clients) sides[name] = () => run(client, settings.httpCalls);
    return { sides, close };
  } catch (error) {
    await close();
    throw error;
  }
}
