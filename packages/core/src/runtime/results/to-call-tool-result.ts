import type { CallToolResult } from '@modelcontextprotocol/server';
import { instanceToPlain } from 'class-transformer';
import { type ContentBlock, text } from './content.js';

const RESULT_KEYS = new Set(['content', 'structuredContent', 'isError', '_meta']);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** True for a well-formed MCP content block (text, image, audio, resource_link, resource). */
export function isContentBlock(value: unknown): value is ContentBlock {
  if (!isObject(value)) return false;
  switch (value.type) {
    case 'text':
      return typeof value.text === 'string';
    case 'image':
    case 'audio':
      return typeof value.data === 'string' && typeof value.mimeType === 'string';
    case 'resource_link':
      return typeof value.uri === 'string' && typeof value.name === 'string';
    case 'resource':
      return (
        isObject(value.resource) &&
        typeof value.resource.uri === 'string' &&
        (typeof value.resource.text === 'string' || typeof value.resource.blob === 'string')
      );
    default:
      return false;
  }
}

/**
 * An object made only of CallToolResult members that decodes as one. `{ content: [] }` alone is
 * data, not a result (seed rule): a tool returning an empty list under a `content` key means it.
 */
export function isCallToolResultShape(value: unknown): value is CallToolResult {
  if (!isObject(value)) return false;
  const keys = Object.keys(value);
  if (keys.length === 0 || !keys.every((key) => RESULT_KEYS.has(key))) return false;
  if (!Array.isArray(value.content) || !value.content.every(isContentBlock)) return false;
  if (keys.length === 1 && value.content.length === 0) return false;
  if ('structuredContent' in value && !isObject(value.structuredContent)) return false;
  if ('isError' in value && typeof value.isError !== 'boolean') return false;
  if ('_meta' in value && !isObject(value._meta)) return false;
  return true;
}

/** A plain JSON object for `structuredContent`: class instances go through class-transformer. */
export function toPlainObject(value: object): Record<string, unknown> {
  const proto = Object.getPrototypeOf(value);
  if (proto === Object.prototype || proto === null) return value as Record<string, unknown>;
  return instanceToPlain(value) as Record<string, unknown>;
}

/**
 * Converts what a tool method returned into a CallToolResult, by the seeds' rules:
 * string -> one text block; content block(s) -> as is; CallToolResult-shaped object -> as is;
 * other object -> `structuredContent` plus its JSON as text; array/number/other -> JSON text;
 * `undefined` -> an empty result. Throws when the value cannot be written as JSON.
 */
export function toCallToolResult(value: unknown): CallToolResult {
  if (value === undefined) return { content: [] };
  if (typeof value === 'string') return { content: [text(value)] };
  if (isContentBlock(value)) return { content: [value] };
  if (Array.isArray(value) && value.length > 0 && value.every(isContentBlock)) return { content: value };
  if (isCallToolResultShape(value)) return value;
  if (isObject(value) && !(value instanceof Date)) {
    const structured = toPlainObject(value);
    return { content: [text(JSON.stringify(structured))], structuredContent: structured };
  }
  const json = JSON.stringify(value);
  // JSON.stringify gives undefined for functions and symbols: say so rather than send nothing.
  if (json === undefined) throw new TypeError(`a ${typeof value} cannot be sent as a tool result`);
  return { content: [text(json)] };
}
