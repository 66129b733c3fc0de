import type { CallToolResult } from '@modelcontextprotocol/client';

/**
 * The text blocks of a tool result joined by newlines: what a model reads. Handy for asserting
 * error messages, e.g. `expect(textOf(result)).toBe('Invalid arguments for tool "x":\nname: ...')`.
 */
export function textOf(result: Pick<CallToolResult, 'content'>): string {
  return result.content
    .filter((block): block is Extract<CallToolResult['content'][number], { type: 'text' }> => block.type === 'text')
    .map((block) => block.text)
    .join('\n');
}
