import type { ExecutionContext as ArmatureExecution } from '@armature/core';
import type { McpCall } from './mcp-request.js';

/** The `request.mcp` of what Armature is guarding, intercepting or filtering. */
export function mcpCallOfExecution(execution: ArmatureExecution): McpCall {
  return Object.freeze({
    kind: execution.kind,
    name: execution.name,
    phase: execution.phase,
    args: execution.args,
    context: execution.context,
    principal: execution.context.principal,
  });
}
