/// <reference lib="dom" />
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  AppBridge,
  buildAllowAttribute,
  getToolUiResourceUri,
  type McpUiResourceMeta,
  PostMessageTransport,
  RESOURCE_MIME_TYPE,
} from '@modelcontextprotocol/ext-apps/app-bridge';
import { EXTENSION_ID } from '@modelcontextprotocol/ext-apps/server';

// A minimal MCP Apps host, run in the browser by mcp-apps-browser.test.ts (bundled by Vite): an
// official v2 client declaring the extension, connected over HTTP to the server that served this
// page, and the official AppBridge between it and the app's sandboxed frame. Like a chat host, it
// renders the app a tool names, calls the tool for "the model" and hands the app its result.

const info = { name: 'armature-test-host', version: '1.0.0' };

/** The CSP the extension asks a host to enforce: its restrictive default, widened only by what the resource declares. */
function cspOf(csp: McpUiResourceMeta['csp']): string {
  const sources = (list: string[] | undefined) => (list?.length ? ` ${list.join(' ')}` : '');
  return [
    "default-src 'none'",
    `script-src 'self' 'unsafe-inline'${sources(csp?.resourceDomains)}`,
    `style-src 'self' 'unsafe-inline'${sources(csp?.resourceDomains)}`,
    `img-src 'self' data:${sources(csp?.resourceDomains)}`,
    `connect-src${sources(csp?.connectDomains) || " 'none'"}`,
  ].join('; ');
}

async function run(toolName: string, args: Record<string, unknown>) {
  const client = new Client(info, { capabilities: { extensions: { [EXTENSION_ID]: { mimeTypes: [RESOURCE_MIME_TYPE] } } } });
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', location.href)));
  const { tools } = await client.listTools();
  const tool = tools.find((t) => t.name === toolName);
  const uri = tool && getToolUiResourceUri(tool);
  if (!uri) throw new Error(`the server lists no app for ${toolName}`);
  const [view] = (await client.readResource({ uri })).contents;
  if (view?.mimeType !== RESOURCE_MIME_TYPE || !('text' in view)) throw new Error(`${uri} is not an MCP App: ${JSON.stringify(view)}`);
  const ui = (view._meta?.ui ?? {}) as McpUiResourceMeta;

  const frame = document.createElement('iframe');
  frame.id = 'app';
  frame.sandbox.add('allow-scripts'); // no allow-same-origin: the app runs in an opaque origin
  frame.allow = buildAllowAttribute(ui.permissions);
  document.body.append(frame);
  const bridge = new AppBridge(client, info, { serverTools: {}, serverResources: {} });
  const initialized = new Promise<void>((resolve) => {
    bridge.oninitialized = () => resolve();
  });
  const window = frame.contentWindow as Window;
  await bridge.connect(new PostMessageTransport(window, window));
  const csp = `<meta http-equiv="Content-Security-Policy" content="${cspOf(ui.csp)}">`;
  frame.srcdoc = view.text.replace(/<head>/i, `<head>${csp}`);
  await initialized;

  await bridge.sendToolInput({ arguments: args });
  const result = await client.callTool({ name: toolName, arguments: args });
  await bridge.sendToolResult(result as Parameters<AppBridge['sendToolResult']>[0]);
  return {
    tools: tools.map((t) => ({ name: t.name, visibility: (t._meta?.ui as { visibility?: string[] } | undefined)?.visibility })),
    result,
  };
}

(window as unknown as { armatureHost: typeof run }).armatureHost = run;
