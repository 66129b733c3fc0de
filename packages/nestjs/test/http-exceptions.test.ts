import { McpError } from '@armature/core';
import { describe, expect, it } from 'vitest';
import { mcpOutcomeOf } from '../src/http-exceptions.js';

describe('mcpOutcomeOf: a 401 or 403 from a Nest guard answers as Armature refuses', () => {
  it("an extension's method as if it did not exist (-32601), a tool as unknown (-32602)", () => {
    const method = mcpOutcomeOf({ status: 403, body: { message: 'Forbidden' } }, { kind: 'method', name: 'echo/say' }, undefined);
    expect(method).toBeInstanceOf(McpError);
    expect([(method as McpError).code, (method as McpError).message]).toEqual([-32601, 'Method not found: echo/say']);
    const tool = mcpOutcomeOf({ status: 401, body: {} }, { kind: 'tool', name: 'greet' }, undefined);
    expect((tool as McpError).code).toBe(-32602);
  });
});
