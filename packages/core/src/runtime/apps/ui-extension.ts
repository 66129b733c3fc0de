import { EXTENSION_ID, getUiCapability, RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/server';
import type { Tool } from '@modelcontextprotocol/server';
import type { ToolDefinition } from '../../builder/definitions.js';
import { visibleEntries } from '../access.js';
import type { CallRequest } from '../call-request.js';
import { type Catalog, paginate } from '../catalog.js';

// MCP Apps (the io.modelcontextprotocol/ui extension): how the server advertises it, how a client
// opts in, and what a client that did not opt in sees. The extension's names are ext-apps' own.

/** What of the served app this needs (served-app.ts builds on this module, so not `ServedApp` itself). */
interface AppTools {
  readonly tools: Catalog<ToolDefinition, Tool>;
  readonly pageSize: number;
}

/** What the server adds to its capabilities' `extensions` when a tool has an app. */
export const UI_EXTENSION_CAPABILITY = { [EXTENSION_ID]: { mimeTypes: [RESOURCE_MIME_TYPE] } };

/** Per list of enabled tools (the catalog's, rebuilt on each change): whether any has an app. */
const withApps = new WeakMap<readonly object[], boolean>();

/** Whether the app has any enabled tool with an app, worked out once per catalog change. */
export function servesApps(app: Pick<AppTools, 'tools'>): boolean {
  const tools = app.tools.enabledDefinitions();
  let serves = withApps.get(tools);
  if (serves === undefined) {
    serves = tools.some((tool) => tool.ui !== undefined);
    withApps.set(tools, serves);
  }
  return serves;
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
 * The tools the caller sees (its guards asked); for a client that does not render apps, each as a
 * plain tool (no `_meta.ui`) and without the tools only their app may call, as the extension's
 * fallback asks.
 */
export async function visibleTools(app: Pick<AppTools, 'tools'>, call: CallRequest): Promise<readonly Tool[]> {
  const views = await visibleEntries(app.tools, call);
  if (!servesApps(app) || rendersApps(call)) return views;
  return views.flatMap((view) => {
    const tool = app.tools.get(view.name);
    if (!tool?.ui) return [view];
    return plainClientMayCall(tool) ? [tool.ui.plain as Tool] : [];
  });
}

/** One page of `tools/list` for a client that does not render apps (see `visibleTools`). */
export async function plainToolsPage(app: AppTools, cursor: string | undefined, call: CallRequest) {
  const { items, nextCursor } = paginate(await visibleTools(app, call), cursor, app.pageSize);
  return { tools: items, ...(nextCursor ? { nextCursor } : {}) };
}
