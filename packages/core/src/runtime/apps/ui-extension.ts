import { EXTENSION_ID, getUiCapability, RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/server';
import type { Tool } from '@modelcontextprotocol/server';
import { visibleEntries } from '../access.js';
import type { CallRequest } from '../call-request.js';
import { paginate } from '../catalog.js';
import type { ServedApp } from '../served-app.js';

// MCP Apps (the io.modelcontextprotocol/ui extension): how the server advertises it, how a client
// opts in, and what a client that did not opt in sees. The extension's names are ext-apps' own.

/** What the server adds to its capabilities' `extensions` when a tool has an app. */
export const UI_EXTENSION_CAPABILITY = { [EXTENSION_ID]: { mimeTypes: [RESOURCE_MIME_TYPE] } };

/** Whether the app has any enabled tool with an app (worked out by the catalog once per change). */
export function servesApps(app: Pick<ServedApp, 'tools'>): boolean {
  return app.tools.enabledDefinitions().some((tool) => tool.ui !== undefined);
}

/**
 * Whether the request's client renders MCP Apps: it declares the extension with the app MIME type
 * in its capabilities (at `initialize` on 2025-11-25, per request on 2026-07-28), as the
 * specification's capability negotiation asks.
 */
export function rendersApps(call: CallRequest): boolean {
  return getUiCapability(call.ctx.channel.capabilities())?.mimeTypes?.includes(RESOURCE_MIME_TYPE) === true;
}

/** Whether a client that does not render apps may call the tool: not when only its app may (`visibility: ['app']`). */
export function plainClientMayCall(tool: { readonly ui?: { readonly visibility: readonly string[] } }): boolean {
  return tool.ui === undefined || tool.ui.visibility.includes('model');
}

/**
 * One page of `tools/list` for a client that does not render apps: each tool as a plain tool
 * (no `_meta.ui`), and the tools only their app may call left out, as the extension's fallback asks.
 */
export async function plainToolsPage(app: ServedApp, cursor: string | undefined, call: CallRequest) {
  const views: Tool[] = [];
  for (const view of await visibleEntries(app.tools, call)) {
    const tool = app.tools.get(view.name);
    if (!tool?.ui) views.push(view);
    else if (plainClientMayCall(tool)) views.push(tool.ui.plain as Tool);
  }
  const { items, nextCursor } = paginate(views, cursor, app.pageSize);
  return { tools: items, ...(nextCursor ? { nextCursor } : {}) };
}
