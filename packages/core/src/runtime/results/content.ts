import type { AudioContent, EmbeddedResource, ImageContent, ResourceLink, TextContent } from '@modelcontextprotocol/server';

/** Any content block a tool may return. */
export type ContentBlock = TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource;

/** A text content block. */
export function text(value: string): TextContent {
  return { type: 'text', text: value };
}

function toBase64(data: Uint8Array | string): string {
  return typeof data === 'string' ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('base64');
}

/**
 * An image content block from bytes or a base64 string.
 *
 * @example
 * ```ts
 * return [text('Here is the chart:'), image(await renderPng(), 'image/png')];
 * ```
 */
export function image(data: Uint8Array | string, mimeType: string): ImageContent {
  return { type: 'image', data: toBase64(data), mimeType };
}

/** An audio content block from bytes or a base64 string. */
export function audio(data: Uint8Array | string, mimeType: string): AudioContent {
  return { type: 'audio', data: toBase64(data), mimeType };
}

/** A link to a resource the client can read or subscribe to. */
export function resourceLink(
  uri: string,
  name: string,
  options: { title?: string; description?: string; mimeType?: string; size?: number } = {},
): ResourceLink {
  return { type: 'resource_link', uri, name, ...options };
}

/**
 * A resource embedded in the result: text for strings, a base64 `blob` for bytes.
 *
 * @example
 * ```ts
 * embeddedResource('file:///notes.md', '# Notes', { mimeType: 'text/markdown' });
 * ```
 */
export function embeddedResource(uri: string, contents: string | Uint8Array, options: { mimeType?: string } = {}): EmbeddedResource {
  const resource = typeof contents === 'string' ? { uri, text: contents, ...options } : { uri, blob: toBase64(contents), ...options };
  return { type: 'resource', resource };
}
