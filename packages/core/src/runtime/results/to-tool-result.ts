import type { CallToolResult } from '@modelcontextprotocol/server';
import type { ToolDefinition } from '../../builder/definitions.js';
import { callMessages } from '../../messages/call-messages.js';
import type { ValidationIssue } from '../../messages/validation-issue.js';
import { describe, validateOutput } from '../../validation/dto-validator.js';
import { text } from './content.js';
import { isCallToolResultShape, toCallToolResult, toPlainObject } from './to-call-tool-result.js';

/** An `isError` result with `message` as its text (members in the order the SDK writes them). */
export function errorResult(message: string, structured?: Record<string, unknown>): CallToolResult {
  if (structured) return { content: [text(message)], structuredContent: structured, isError: true };
  return { content: [text(message)], isError: true };
}

function invalidResult(tool: ToolDefinition, issues: readonly ValidationIssue[]): CallToolResult {
  return errorResult(callMessages.invalidResult(tool.name, issues));
}

/** Converts the method's return value, checking it against the tool's output schema if it has one. */
export async function toToolResult(tool: ToolDefinition, value: unknown): Promise<CallToolResult> {
  if (tool.output.kind === 'none') return toCallToolResult(value);
  if (tool.output.kind === 'relayed') return value as CallToolResult;
  const asResult = isCallToolResultShape(value) ? value : undefined;
  if (asResult?.isError) return asResult;
  const structured = asResult ? asResult.structuredContent : value;
  if (structured === undefined) {
    return invalidResult(tool, [{ path: '', message: `expected an object matching the output schema, got ${describe(value)}` }]);
  }
  let plain: Record<string, unknown>;
  if (tool.output.kind === 'dto') {
    const outcome = await validateOutput(tool.output.dto, structured);
    if (!outcome.ok) return invalidResult(tool, outcome.issues);
    plain = toPlainObject(outcome.value);
  } else {
    const outcome = tool.output.validate(structured);
    if (!outcome.ok) return invalidResult(tool, outcome.issues);
    plain = outcome.value as Record<string, unknown>;
  }
  if (asResult) return { ...asResult, structuredContent: plain };
  return { content: [text(JSON.stringify(plain))], structuredContent: plain };
}
