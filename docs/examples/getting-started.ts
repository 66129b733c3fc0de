import { createMcpApp, McpServer, Tool } from '@armature/core';
import { GreetInput } from './getting-started/src/greeter.js';
import { inMemory, overHttp } from './getting-started/test/connect.js';
import { expectEqual } from './support/check.js';

export const outputs = {
  'greet-schema': `{
  "type": "object",
  "properties": {
    "name": {
      "minLength": 1,
      "maxLength": 50,
      "type": "string",
      "description": "Who to greet"
    },
    "language": {
      "enum": [
        "en",
        "it"
      ],
      "type": "string",
      "description": "Language of the greeting",
      "default": "en"
    }
  },
  "required": [
    "name"
  ],
  "additionalProperties": false
}`,
  'no-metadata': `Armature cannot start the MCP server: 1 problem in the decorated classes.
  1. GreeterServer.greet: no decorator metadata was emitted for this method, so its DTO parameter type is unknown (tsx and esbuild emit none) [ARM200]
     Fix: compile with tsc or vite-node (or run on Bun or Deno, see Runtimes) with \`"emitDecoratorMetadata": true\`, or name the DTO: @Tool({ input: () => MyDto, ... })`,
};

/** What a compiler without decorator metadata (tsx, esbuild) leaves behind, and what Armature says about it. */
function startWithoutMetadata(): string {
  // The decorators still run, but no `design:paramtypes` is recorded: the same state tsx produces.
  class GreeterServer {
    greet(input: GreetInput) {
      return input.name;
    }
  }
  const greet = Object.getOwnPropertyDescriptor(GreeterServer.prototype, 'greet') as PropertyDescriptor;
  Tool({ description: 'Greet someone by name' })(GreeterServer.prototype, 'greet', greet);
  McpServer({ name: 'greeter', version: '1.0.0' })(GreeterServer);
  try {
    createMcpApp(GreeterServer);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('createMcpApp should refuse a tool whose DTO type was not reflected');
}

export async function main(): Promise<void> {
  await inMemory();
  await overHttp();
  expectEqual(startWithoutMetadata(), outputs['no-metadata'], 'the start-up error without decorator metadata');
}
