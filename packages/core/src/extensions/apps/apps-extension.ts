import type { McpUiToolVisibility } from '@modelcontextprotocol/ext-apps';
import { EXTENSION_ID, RESOURCE_MIME_TYPE, RESOURCE_URI_META_KEY } from '@modelcontextprotocol/ext-apps/server';
import { defineExtension, type Extension, type ExtensionHost } from '../../context/extension.js';
import { MESSAGES, type MessageDefinition } from '../../messages/message-catalog.js';
import type { ResourceOptions, ToolUiOptions } from '../../metadata/metadata-args.js';

// MCP Apps (the io.modelcontextprotocol/ui extension, ext-apps specification 2026-01-26), written
// on the public extension interface: a tool's `ui` (`@Tool({ ui })`) and an `@AppResource`'s
// metadata become `_meta.ui`, checked at start-up; a client that did not declare the extension
// with the app MIME type sees each tool as plain, and not the tools only their app may call.

const VISIBILITIES: readonly McpUiToolVisibility[] = ['model', 'app'];

function isUiUri(uri: unknown): uri is string {
  if (typeof uri !== 'string' || !uri.startsWith('ui://')) return false;
  return URL.canParse(uri) && uri.length > 'ui://'.length;
}

/** Reports one of the catalog's MCP Apps problems against `where` (a tool's or resource's `Class.method`). */
function report<A extends readonly unknown[]>(host: ExtensionHost, where: string, definition: MessageDefinition<A>, ...args: NoInfer<A>) {
  const { message, fix } = definition.render(...args);
  host.problem(message, fix, { where, code: definition.code });
}

function validVisibility(visibility: unknown): visibility is McpUiToolVisibility[] | undefined {
  return (
    visibility === undefined ||
    (Array.isArray(visibility) &&
      visibility.length > 0 &&
      new Set(visibility).size === visibility.length &&
      visibility.every((v) => VISIBILITIES.includes(v)))
  );
}

/**
 * A tool's `ui`, checked: its descriptor gains the `_meta.ui` hosts that render apps read (and the
 * flat `ui/resourceUri` older hosts read, as ext-apps' registerAppTool writes both), its `ui://`
 * URI moved with the tool's mounted part; a tool only its app may call is not seen by other clients.
 * Returns the app resource's URI, to be checked once every tool is.
 */
function appTool(host: ExtensionHost, name: string): { uri: string; where: string } | undefined {
  const tool = host.tool(name);
  const ui = tool?.options.ui as ToolUiOptions | undefined;
  if (!tool || ui === undefined) return undefined;
  let sound = true;
  if (!isUiUri(ui?.resource)) {
    report(host, tool.where, MESSAGES.appUiResourceInvalid, JSON.stringify(ui?.resource) ?? String(ui?.resource));
    sound = false;
  }
  const { visibility } = ui ?? {};
  if (!validVisibility(visibility)) {
    report(host, tool.where, MESSAGES.appUiVisibilityInvalid, JSON.stringify(visibility) ?? String(visibility));
    sound = false;
  }
  if (!sound) return undefined;
  const uri = tool.servedUri(ui.resource) ?? ui.resource;
  const meta = { resourceUri: uri, ...(visibility ? { visibility: [...visibility] } : {}) };
  host.extendTool(name, {
    _meta: { ui: meta, [RESOURCE_URI_META_KEY]: uri },
    onlyForExtensionClients: !(visibility ?? VISIBILITIES).includes('model'),
  });
  return { uri, where: tool.where };
}

/** An `@AppResource`'s `_meta.ui` (its URI checked), without the members left out, on its listing and its contents. */
function appResource(host: ExtensionHost, uri: string): void {
  const resource = host.resourceOf(uri);
  const ui = resource?.options.ui as ResourceOptions['ui'];
  if (!resource || !ui) return;
  const declared = resource.options.uri;
  if (!isUiUri(declared)) report(host, resource.where, MESSAGES.appResourceUriInvalid, String(declared));
  const meta = Object.fromEntries(Object.entries(ui).filter(([, value]) => value !== undefined));
  host.extendResource(uri, { _meta: { ui: meta } });
}

/** Every tool's `ui.resource` must be an app the app serves: reported against the tool. */
function checkAppResource(host: ExtensionHost, { uri, where }: { uri: string; where: string }): void {
  const resource = host.resourceOf(uri);
  if (!resource) report(host, where, MESSAGES.appUiResourceMissing, uri);
  else if (resource.mimeType !== RESOURCE_MIME_TYPE)
    report(host, where, MESSAGES.appUiResourceNotApp, uri, resource.where, resource.mimeType ?? 'no MIME type');
}

/**
 * MCP Apps, which every app serves (`createMcpApp` sets it up before the app's own extensions): it
 * is advertised, with the app MIME type, only when a tool has an app, and a client takes part when
 * it declares the extension with that MIME type (at `initialize` on 2025-11-25, per request on
 * 2026-07-28), as the specification's capability negotiation asks.
 */
export function mcpApps(): Extension {
  return defineExtension({
    id: EXTENSION_ID,
    settings: { mimeTypes: [RESOURCE_MIME_TYPE] },
    accepts: (declared) => Array.isArray(declared.mimeTypes) && declared.mimeTypes.includes(RESOURCE_MIME_TYPE),
    setup: (host) => {
      const apps = host.catalog.tools.flatMap((name) => appTool(host, name) ?? []);
      for (const uri of host.catalog.resources) appResource(host, uri);
      for (const app of apps) checkAppResource(host, app);
      if (apps.length === 0) host.advertise(undefined);
    },
  });
}
