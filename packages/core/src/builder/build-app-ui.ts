import type { McpUiResourceMeta, McpUiToolVisibility } from '@modelcontextprotocol/ext-apps';
import { RESOURCE_MIME_TYPE, RESOURCE_URI_META_KEY } from '@modelcontextprotocol/ext-apps/server';
import type { Tool } from '@modelcontextprotocol/server';
import type { BuildProblem } from '../messages/build-error.js';
import { MESSAGES, problem } from '../messages/message-catalog.js';
import type { ResourceOptions, ToolUiOptions } from '../metadata/metadata-args.js';
import type { ResourceDefinition, ToolDefinition, ToolUi } from './definitions.js';
import { deepFreeze, type HandlerBuild } from './handler-build.js';

// MCP Apps (the io.modelcontextprotocol/ui extension, ext-apps specification 2026-01-26): what a
// tool's `ui` and an app resource's metadata become, checked at start-up.

const VISIBILITIES: readonly McpUiToolVisibility[] = ['model', 'app'];

function isUiUri(uri: unknown): uri is string {
  if (typeof uri !== 'string' || !uri.startsWith('ui://')) return false;
  return URL.canParse(uri) && uri.length > 'ui://'.length;
}

/**
 * A tool's `ui`, checked, with the plain descriptor (`descriptor` as it is) that clients without
 * MCP Apps get; `descriptor` itself gains the `_meta.ui` hosts that render apps read (and the flat
 * `ui/resourceUri` older hosts read, as ext-apps' registerAppTool writes both). Undefined after
 * reporting a problem.
 */
export function toolUiOf(build: HandlerBuild<'tool'>, ui: ToolUiOptions, descriptor: Tool): ToolUi | undefined {
  let sound = true;
  if (!isUiUri(ui?.resource)) {
    build.add(MESSAGES.appUiResourceInvalid, JSON.stringify(ui?.resource) ?? String(ui?.resource));
    sound = false;
  }
  const { visibility } = ui ?? {};
  if (
    visibility !== undefined &&
    (!Array.isArray(visibility) ||
      visibility.length === 0 ||
      new Set(visibility).size !== visibility.length ||
      !visibility.every((v) => VISIBILITIES.includes(v)))
  ) {
    build.add(MESSAGES.appUiVisibilityInvalid, JSON.stringify(visibility) ?? String(visibility));
    sound = false;
  }
  if (!sound) return undefined;
  const plain = deepFreeze(structuredClone(descriptor));
  const meta = { resourceUri: ui.resource, ...(visibility ? { visibility: [...visibility] } : {}) };
  descriptor._meta = { ...descriptor._meta, ui: meta, [RESOURCE_URI_META_KEY]: ui.resource };
  return Object.freeze({ resourceUri: ui.resource, visibility: Object.freeze([...(visibility ?? VISIBILITIES)]), plain });
}

/**
 * The `_meta.ui` of a resource declared with `@AppResource` (its URI checked), without the
 * members left out; undefined for any other resource.
 */
export function resourceUiOf(build: HandlerBuild<'resource'>, options: ResourceOptions): McpUiResourceMeta | undefined {
  if (!options.ui) return undefined;
  if (!isUiUri(options.uri)) build.add(MESSAGES.appResourceUriInvalid, String(options.uri));
  const meta = Object.fromEntries(Object.entries(options.ui).filter(([, value]) => value !== undefined));
  return deepFreeze(meta) as McpUiResourceMeta;
}

/** Every tool's `ui.resource` must be an app the app serves: reported against the tool. */
export function checkAppResources(
  tools: Iterable<ToolDefinition>,
  resources: ReadonlyMap<string, ResourceDefinition>,
  problems: BuildProblem[],
): void {
  for (const tool of tools) {
    if (!tool.ui) continue;
    const resource = resources.get(tool.ui.resourceUri);
    if (!resource) problems.push(problem(MESSAGES.appUiResourceMissing, tool.where, tool.ui.resourceUri));
    else if (resource.descriptor.mimeType !== RESOURCE_MIME_TYPE) {
      problems.push(
        problem(
          MESSAGES.appUiResourceNotApp,
          tool.where,
          tool.ui.resourceUri,
          resource.where,
          resource.descriptor.mimeType ?? 'no MIME type',
        ),
      );
    }
  }
}
