import { expect, it } from 'vitest';
import * as surface from '../src/index.js';

it('exports exactly the public surface', () => {
  expect(Object.keys(surface).sort()).toEqual([
    'ArmatureHost',
    'ArmatureModule',
    'ArmatureValidationPipe',
    'MCP_CONTEXT',
    'McpExecutionContext',
    'McpResponse',
    'NestContainerAdapter',
    'isMcpRequest',
    'mcpCallOf',
  ]);
});
