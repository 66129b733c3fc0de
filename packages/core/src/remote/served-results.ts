// What a remote answers, as the app serves it: the URIs of the remote's resources moved under its
// part's prefix, and the `_meta` keys the protocol reserves left to the app.

/** A remote's answer or entry, as a plain record. */
export type Result = Record<string, unknown>;

/** The served URI of a remote's URI, or undefined when it has no scheme to put the prefix after. */
export type UriOf = (uri: string) => string | undefined;

const RESERVED_META = 'io.modelcontextprotocol/';

/** A remote tool's `_meta` with its MCP App's `ui://` URI moved under the prefix (the resource moves too). */
export function servedToolMeta(meta: Result, uriOf: UriOf): Result {
  const ui = meta.ui as Result | undefined;
  const moved = (uri: unknown) => (typeof uri === 'string' ? (uriOf(uri) ?? uri) : uri);
  return {
    ...meta,
    ...(ui && 'resourceUri' in ui ? { ui: { ...ui, resourceUri: moved(ui.resourceUri) } } : {}),
    ...('ui/resourceUri' in meta ? { 'ui/resourceUri': moved(meta['ui/resourceUri']) } : {}),
  };
}

/** A remote tool's result as the app sends it: resource URIs moved under the prefix, reserved `_meta` keys left to the app. */
export function servedToolResult(result: Result, uriOf: UriOf): Result {
  const content = Array.isArray(result.content) ? (result.content as Result[]).map((block) => servedBlock(block, uriOf)) : [];
  const meta = ownMeta(result._meta);
  return {
    content,
    ...(result.structuredContent !== undefined ? { structuredContent: result.structuredContent } : {}),
    ...(result.isError === true ? { isError: true } : {}),
    ...(meta ? { _meta: meta } : {}),
  };
}

/** A remote read's contents, each URI moved under the prefix. */
export function servedContents(result: Result, uriOf: UriOf): Result {
  const contents = Array.isArray(result.contents) ? (result.contents as Result[]) : [];
  return { contents: contents.map((item) => (typeof item.uri === 'string' ? { ...item, uri: uriOf(item.uri) ?? item.uri } : item)) };
}

/** `_meta` of a remote's answer without the keys the protocol reserves (the app writes its own). */
function ownMeta(meta: unknown): Result | undefined {
  if (typeof meta !== 'object' || meta === null) return undefined;
  const kept = Object.entries(meta).filter(([key]) => !key.startsWith(RESERVED_META));
  return kept.length > 0 ? Object.fromEntries(kept) : undefined;
}

/** A content block with the URI of a remote resource it names moved under the part's prefix. */
function servedBlock(block: Result, uriOf: UriOf): Result {
  if (block.type === 'resource_link' && typeof block.uri === 'string') return { ...block, uri: uriOf(block.uri) ?? block.uri };
  const resource = block.resource as Result | undefined;
  if (block.type === 'resource' && typeof resource?.uri === 'string')
    return { ...block, resource: { ...resource, uri: uriOf(resource.uri) ?? resource.uri } };
  return block;
}
