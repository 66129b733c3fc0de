import { camelCase, kebabCase, sentenceCase, snakeCase } from '../util/names.js';
import { importPath, listTypeScriptFiles, type Project } from '../util/project.js';
import { addClassMember, classHasMember, ensureNamedImports } from '../util/source-edit.js';
import { tsLiteral } from '../util/ts-literal.js';
import type { Ui } from '../util/ui.js';
import {
  assertNameFree,
  GenerateError,
  type GenerateOptions,
  type GeneratePlan,
  nestTestHelper,
  resolveServer,
  srcPath,
  testPath,
} from './generate-context.js';
import { importLine, testingAppSuite } from './render.js';

/**
 * The app's HTML, as a TypeScript module (so `tsc` and `armature build` carry it to dist/ like any
 * source). It speaks the MCP Apps protocol with its host over postMessage: `ui/initialize`, the
 * tool's result (`ui/notifications/tool-result`), and `tools/call` through the host on a click.
 */
function renderView(constName: string, toolName: string, title: string): string {
  return `// The HTML of the ${toolName} app, served by its @AppResource. The host renders it in a sandboxed
// frame (no network unless the resource's csp allows it) and passes messages between it and the server.
export const ${constName} = \`<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>${title}</title>
  </head>
  <body>
    <p id="message">Waiting for the tool's result...</p>
    <button type="button" id="again" disabled>Call ${toolName} again</button>
    <script type="module">
      const message = document.getElementById('message');
      const pending = new Map();
      let nextId = 1;

      function request(method, params) {
        const id = nextId++;
        window.parent.postMessage({ jsonrpc: '2.0', id, method, params }, '*');
        return new Promise((resolve, reject) => pending.set(id, { resolve, reject }));
      }

      // The tool's structuredContent is what the app reads.
      function show(result) {
        message.textContent = result.isError ? 'The call failed' : result.structuredContent.message;
      }

      window.addEventListener('message', (event) => {
        if (event.source !== window.parent) return;
        const data = event.data;
        if (data?.id !== undefined && pending.has(data.id)) {
          const { resolve, reject } = pending.get(data.id);
          pending.delete(data.id);
          if (data.error) reject(new Error(data.error.message));
          else resolve(data.result);
        } else if (data?.method === 'ui/notifications/tool-result') {
          show(data.params);
        }
      });

      await request('ui/initialize', { protocolVersion: '2026-01-26', appInfo: { name: '${toolName}', version: '0.1.0' }, appCapabilities: {} });
      window.parent.postMessage({ jsonrpc: '2.0', method: 'ui/notifications/initialized', params: {} }, '*');
      const again = document.getElementById('again');
      again.onclick = async () => show(await request('tools/call', { name: '${toolName}', arguments: {} }));
      again.disabled = false;
    </script>
  </body>
</html>
\`;
`;
}

/**
 * `armature generate app <name>`: an MCP App (the io.modelcontextprotocol/ui extension): a tool
 * with `ui`, the `@AppResource` serving its HTML (a module next to the server), and its test.
 */
export async function planApp(project: Project, name: string, options: GenerateOptions, ui: Ui): Promise<GeneratePlan> {
  const toolName = snakeCase(name);
  const method = camelCase(name);
  const kebab = kebabCase(name);
  if (!/^[A-Za-z]/.test(method)) throw new GenerateError(`"${name}" cannot name an app: start it with a letter`);
  const server = await resolveServer(project, options.server, ui, 'app');
  const viewMethod = `${method}View`;
  for (const member of [method, viewMethod]) {
    if (classHasMember(server.source, server.className, member)) {
      throw new GenerateError(`${server.className} already has a member called ${member} (${server.file}). Pick another name.`);
    }
  }
  const scheme = kebabCase(server.className.replace(/Server$/, '')) || 'app';
  const uri = `ui://${scheme}/${kebab}.html`;
  const sources = listTypeScriptFiles(project.root);
  assertNameFree(project, sources, new RegExp(`name:\\s*['"]${toolName}['"]`), `a tool is already called ${toolName}`);
  assertNameFree(
    project,
    sources,
    new RegExp(`uri:\\s*['"]${uri.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}['"]`),
    `a resource already has the URI ${uri}`,
  );

  const viewFile = srcPath(server.dir, `apps/${kebab}.view.ts`);
  const viewConst = `${method}Html`;
  const testFile = testPath(server.dir, `${kebab}.app.test.ts`);
  let serverSource = ensureNamedImports(server.source, '@armature/core', ['AppResource', 'Tool']);
  serverSource = ensureNamedImports(serverSource, importPath(server.file, viewFile), [viewConst]);
  serverSource = addClassMember(
    serverSource,
    server.className,
    `@Tool({
  name: ${tsLiteral(toolName)},
  description: ${tsLiteral(`${sentenceCase(name)}, shown in its app. TODO: say what it does and when to use it.`)},
  outputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
  ui: { resource: ${tsLiteral(uri)} },
})
${method}() {
  // TODO: the structured result the app reads (its JSON is the text hosts without apps show).
  return { message: ${tsLiteral(`Hello from ${kebab}`)} };
}`,
  );
  serverSource = addClassMember(
    serverSource,
    server.className,
    `@AppResource({ uri: ${tsLiteral(uri)}, name: ${tsLiteral(`${kebab}-view`)}, description: ${tsLiteral(`The app of ${toolName}`)} })
${viewMethod}(): string {
  return ${viewConst};
}`,
  );

  const nestHelper = nestTestHelper(project, testFile);
  // A Nest project's connectMcp() is a client without MCP Apps: it sees the plain tool.
  const advertised = nestHelper
    ? `  it('is a plain tool for a client without MCP Apps', async () => {
    const tool = (await t.listTools()).find((entry) => entry.name === ${tsLiteral(toolName)});
    expect(tool?._meta).toBeUndefined();
  });`
    : `  it('is advertised with its app to hosts that render MCP Apps', async () => {
    const tool = (await t.client.listTools()).tools.find((entry) => entry.name === ${tsLiteral(toolName)});
    expect(tool?._meta?.ui).toEqual({ resourceUri: ${tsLiteral(uri)} });
  });`;
  const suite = testingAppSuite({
    testingNames: [],
    serverImport: importLine([server.className], importPath(testFile, server.file)),
    nestHelper,
    serverClass: server.className,
    preamble: '\n',
    title: `app ${toolName}`,
  }).replace(
    `createTestingApp({ servers: [${server.className}] })`,
    // The testing app's client declares MCP Apps, as a host that renders them does.
    `createTestingApp({
      servers: [${server.className}],
      clientCapabilities: { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } },
    })`,
  );
  return {
    files: [
      { path: viewFile, action: 'create', content: renderView(viewConst, toolName, sentenceCase(name)) },
      { path: server.file, action: 'update', content: serverSource, note: `adds ${server.className}.${method} and ${viewMethod}` },
      {
        path: testFile,
        action: 'create',
        content: `${suite}
${advertised}

  it('serves its HTML as an MCP App', async () => {
    const [view] = (await t.readResource(${tsLiteral(uri)})).contents;
    expect(view).toMatchObject({ uri: ${tsLiteral(uri)}, mimeType: 'text/html;profile=mcp-app' });
    expect(view && 'text' in view ? view.text : '').toContain('ui/initialize');
  });

  it('answers with the structured result the app reads', async () => {
    const result = await t.callTool(${tsLiteral(toolName)}, {});
    expect(result.structuredContent).toEqual({ message: ${tsLiteral(`Hello from ${kebab}`)} });
  });
});
`,
      },
    ],
    summary: `app "${toolName}" (${uri}) in ${server.className}`,
    next: `Describe ${toolName}, return what its app shows from ${server.className}.${method}, and build the page in ${viewFile}.`,
  };
}
