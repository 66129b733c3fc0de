// Spawned by `armature dev` and `armature inspect`: node vite-node-runner.js <vite-node dir> <entry> [args...]
//
// vite-node's own CLI resolves bare imports the way a bundler does: the `module` field and the
// `module` condition first. typedi, class-transformer and class-validator ship an ESM build under
// `module` and their CommonJS build under `main`, and vite-node inlines that ESM build for the
// user's files while @armature/core (an external package run by Node) gets the CommonJS one: two
// typedi containers, two class-transformer stores, and @Service()/@Type() "missing" at start-up.
// Resolving as Node does (`main`, no `module` condition) gives every importer the same file.
import { closeSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { inspect } from 'node:util';
import { READY_FD_ENV } from './vite-node.js';

const [viteNodeDir, entryArg, ...entryArgs] = process.argv.slice(2);
// Read once and removed, so that processes the server itself spawns never write to that fd.
const readyFd = process.env[READY_FD_ENV] ? Number(process.env[READY_FD_ENV]) : undefined;
delete process.env[READY_FD_ENV];
if (!viteNodeDir || !entryArg) {
  process.stderr.write('usage: node vite-node-runner.js <vite-node dir> <entry> [args...]\n');
  process.exit(2);
}
const fromViteNode = createRequire(join(viteNodeDir, 'package.json'));
const load = (id: string) => import(pathToFileURL(fromViteNode.resolve(id)).href);

const { createServer } = (await load('vite')) as typeof import('vite');
const { ViteNodeServer } = (await load('vite-node/server')) as typeof import('vite-node/server');
const { ViteNodeRunner } = (await load('vite-node/client')) as typeof import('vite-node/client');
const { installSourcemapsSupport } = (await load('vite-node/source-map')) as typeof import('vite-node/source-map');

const entry = resolve(entryArg);
const server = await createServer({
  logLevel: 'error',
  root: process.cwd(),
  server: { hmr: false, watch: null },
  optimizeDeps: { noDiscovery: true, include: [] },
  ssr: { resolve: { mainFields: ['main'], conditions: ['node', 'development|production'], externalConditions: ['node'] } },
});
await server.environments.client.pluginContainer.buildStart({});
const node = new ViteNodeServer(server);
installSourcemapsSupport({ getSourceMap: (source) => node.getSourceMap(source) });
const runner = new ViteNodeRunner({
  root: server.config.root,
  base: server.config.base,
  fetchModule: (id) => node.fetchModule(id),
  resolveId: (id, importer) => node.resolveId(id, importer),
});
// The entry sees itself as argv[1] and everything after it as its own arguments, as under `node entry.js ...`.
process.argv = [process.argv[0] as string, entry, ...entryArgs];
await runner.executeId('/@vite/env');
try {
  await runner.executeFile(entry);
} catch (error) {
  process.stderr.write(`${await describeFailure(error)}\n`);
  process.exit(1);
}
if (readyFd !== undefined) {
  writeSync(readyFd, 'up\n');
  closeSync(readyFd);
}
await server.close();

/**
 * What a failed start prints: the problems and their fixes when the project's @armature/core can
 * explain the error (its build problems, a decorator evaluated before reflect-metadata), the
 * whole error otherwise; ARMATURE_DEBUG=1 adds the stack.
 */
async function describeFailure(error: unknown): Promise<string> {
  let explained: Error | undefined;
  try {
    const core = createRequire(join(process.cwd(), 'package.json')).resolve('@armature/core');
    const { explainStartupError } = (await import(pathToFileURL(core).href)) as {
      explainStartupError?: (error: unknown) => Error | undefined;
    };
    explained = explainStartupError?.(error);
  } catch {
    // no @armature/core to ask (or an older one): print the error as Node would
  }
  const debug = !['', '0', undefined].includes(process.env.ARMATURE_DEBUG);
  if (!explained) return inspect(error);
  return debug ? `${explained.message}\n\n${inspect(error)}` : explained.message;
}
