import type { CallToolResult, Client } from '@modelcontextprotocol/client';
import {
  AppBridge,
  buildAllowAttribute,
  type McpUiResourceMeta,
  PostMessageTransport,
  RESOURCE_MIME_TYPE,
} from '@modelcontextprotocol/ext-apps/app-bridge';
import { useEffect, useRef, useState } from 'preact/hooks';
import { CLIENT_INFO } from './connection.js';

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

/**
 * An MCP App (a tool's `ui://` resource) in a sandboxed frame (scripts only, an opaque origin),
 * connected to the page's MCP client through the official AppBridge: the app's own tool calls and
 * reads go to the server. It gets the call's arguments and result once it has initialized.
 */
export function AppFrame({
  client,
  uri,
  args,
  result,
}: {
  client: Client;
  uri: string;
  args: Record<string, unknown>;
  result: CallToolResult;
}) {
  const holder = useRef<HTMLDivElement>(null);
  const [problem, setProblem] = useState<string>();
  useEffect(() => {
    let bridge: AppBridge | undefined;
    const frame = document.createElement('iframe');
    (async () => {
      const [view] = (await client.readResource({ uri })).contents;
      if (view?.mimeType !== RESOURCE_MIME_TYPE || !view || !('text' in view))
        throw new Error(`${uri} is not an MCP App (${view?.mimeType})`);
      const ui = (view._meta?.ui ?? {}) as McpUiResourceMeta;
      frame.id = 'app-frame';
      frame.sandbox.add('allow-scripts');
      frame.allow = buildAllowAttribute(ui.permissions);
      holder.current?.replaceChildren(frame);
      bridge = new AppBridge(client, CLIENT_INFO, { serverTools: {}, serverResources: {} });
      const initialized = new Promise<void>((done) => {
        (bridge as AppBridge).oninitialized = () => done();
      });
      const target = frame.contentWindow as Window;
      await bridge.connect(new PostMessageTransport(target, target));
      frame.srcdoc = view.text.replace(/<head>/i, `<head><meta http-equiv="Content-Security-Policy" content="${cspOf(ui.csp)}">`);
      await initialized;
      await bridge.sendToolInput({ arguments: args });
      await bridge.sendToolResult(result as Parameters<AppBridge['sendToolResult']>[0]);
    })().catch((error: unknown) => setProblem(error instanceof Error ? error.message : String(error)));
    return () => {
      void bridge?.close();
      frame.remove();
    };
  }, [client, uri, args, result]);
  return (
    <div class="app">
      <div class="meta">MCP App {uri}</div>
      {problem && <div class="field-error">{problem}</div>}
      <div ref={holder} class="app-holder" />
    </div>
  );
}
