/**
 * The JSON text of a tool result `isPlainToolResult` accepted, the same bytes `JSON.stringify`
 * writes for it, without walking it as an object: its frame is constant, only the texts (and
 * `structuredContent`, as is) are encoded. `JSON.stringify` of the whole result costs about ten
 * times as much for a small one.
 */
export function plainToolResultText(result: {
  readonly content: ReadonlyArray<{ readonly text: string }>;
  readonly structuredContent?: unknown;
  readonly isError?: boolean;
}): string | undefined {
  const { content, structuredContent, isError } = result;
  // A `toJSON` of its own would be called with another key at the top level: leave it to JSON.stringify.
  if (structuredContent !== undefined && typeof (structuredContent as { toJSON?: unknown }).toJSON === 'function') return undefined;
  let text = '{"content":[';
  for (let i = 0; i < content.length; i++) {
    text += `${i === 0 ? '' : ','}{"type":"text","text":${JSON.stringify((content[i] as { text: string }).text)}}`;
  }
  text += ']';
  if (structuredContent !== undefined) text += `,"structuredContent":${JSON.stringify(structuredContent)}`;
  if (isError !== undefined) text += `,"isError":${isError}`;
  return `${text}}`;
}
