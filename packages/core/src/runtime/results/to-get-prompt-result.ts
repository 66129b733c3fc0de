import type { GetPromptResult, PromptMessage } from '@modelcontextprotocol/server';
import { text } from './content.js';
import { isContentBlock } from './to-call-tool-result.js';

function isMessage(value: unknown): value is PromptMessage {
  if (typeof value !== 'object' || value === null) return false;
  const message = value as Record<string, unknown>;
  return (message.role === 'user' || message.role === 'assistant') && isContentBlock(message.content);
}

/**
 * What a prompt method returned, as a GetPromptResult: a string is one user text message, a
 * content block one user message, a message or an array of messages/blocks is used in order, and
 * `{ messages: [...] }` is the result itself.
 */
export function toGetPromptResult(value: unknown, description?: string): GetPromptResult {
  const withDescription = (messages: PromptMessage[]): GetPromptResult => (description ? { description, messages } : { messages });
  if (typeof value === 'string') return withDescription([{ role: 'user', content: text(value) }]);
  if (typeof value === 'object' && value !== null && !Array.isArray(value) && Array.isArray((value as GetPromptResult).messages)) {
    const result = value as GetPromptResult;
    if (result.messages.every(isMessage)) return result;
  }
  const list = Array.isArray(value) ? value : [value];
  if (list.length > 0 && list.every((item) => isMessage(item) || isContentBlock(item))) {
    return withDescription(
      list.map((item) => (isMessage(item) ? item : { role: 'user' as const, content: item as PromptMessage['content'] })),
    );
  }
  throw new TypeError('a prompt must return a string, content blocks, messages ({ role, content }) or { messages }');
}
