import { pathToFileURL } from 'node:url';

/**
 * Statements that set `app` to the app the module at `entry` exports (`createApp()`, an McpApp
 * called `app`, a `servers` array, or the @McpServer classes), or throw saying what to export.
 * The entry is imported first and `@armature/core` after it, dynamically, as node loads them:
 * `armature inspect`'s loader and the console's host both find the app so.
 */
export function findAppSource(entry: string, shown: string): string {
  const noApp = `${shown} exports no app: export createApp(), an McpApp called app, an array called servers, or the @McpServer classes`;
  // The entry first, as node loads it: an import order that needs @armature/core earlier (ARM125)
  // fails here as it fails there, instead of passing because this module loaded core first.
  return `const entry = await import(${JSON.stringify(pathToFileURL(entry).href)});
  const core = await import('@armature/core');
  let app;
  if (typeof entry.createApp === 'function') app = await entry.createApp();
  else if (entry.app instanceof core.McpApp) app = entry.app;
  else if (Array.isArray(entry.servers)) app = core.createMcpApp(entry.servers);
  else {
    const classes = Object.values(entry).filter((v) => typeof v === 'function' && core.getMetadataStorage().findServer(v));
    if (classes.length > 0) app = core.createMcpApp(classes);
  }
  if (!(app instanceof core.McpApp)) throw new Error(${JSON.stringify(noApp)});`;
}

/**
 * The module the console runs in place of the entry (written into the project, so that bare
 * imports resolve as the project's own code does): it finds the app the entry exports, as
 * `armature inspect` does, serves it over Streamable HTTP on a free port of 127.0.0.1 (both
 * protocol revisions, sessions for 2025-11-25), and tells the console where (with what Armature
 * knows of each handler), or why it could not start (an ArmatureBuildError's problems, with their
 * codes and fixes). Under plain node it also writes the "up" line to the fd `readyEnv` names, as
 * `armature dev`'s vite-node runner does.
 */
export function hostSource(entry: string, shown: string, readyEnv: string): string {
  return `import { closeSync, writeSync } from 'node:fs';
import { explainStartupError } from '@armature/core';

try {
  ${findAppSource(entry, shown)}
  const d = app.definition;
  const facts = (key, h) => [key, { where: h.where, tags: [...(h.plan?.tags ?? [])], guards: h.plan?.guards?.length ?? 0, rateLimits: h.plan?.rateLimits?.length ?? 0 }];
  const handlers = Object.fromEntries([
    ...[...(d.tools?.values() ?? [])].map((h) => facts('tool:' + h.name, h)),
    ...[...(d.resources?.values() ?? [])].map((h) => facts('resource:' + h.uri, h)),
    ...[...(d.resourceTemplates ?? [])].map((h) => facts('template:' + h.descriptor.uriTemplate, h)),
    ...[...(d.prompts?.values() ?? [])].map((h) => facts('prompt:' + h.name, h)),
  ]);
  const { url } = await app.listenHttp({ port: 0, host: '127.0.0.1' });
  process.send?.({ type: 'up', url, handlers });
  // Under plain node (a built app) no runner says the server is up to \`armature dev\`: the host does.
  const ready = process.env[${JSON.stringify(readyEnv)}];
  if (ready) {
    delete process.env[${JSON.stringify(readyEnv)}];
    writeSync(Number(ready), 'up\\n');
    closeSync(Number(ready));
  }
} catch (error) {
  const explained = explainStartupError(error);
  const problems = (explained?.problems ?? []).map(({ code, where, message, fix }) => ({ code, where, message, fix }));
  const message = (explained ?? error)?.message ?? String(error);
  process.send?.({ type: 'failed', message, problems });
  throw error;
}
`;
}
