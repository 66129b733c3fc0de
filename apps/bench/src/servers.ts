// The two servers under test: the same `add` tool written the Armature way and the bare SDK way.
// Both answer `{ content: [{ type: 'text', text: '<a+b>' }] }` under the same server info, so the
// results on the wire are identical (checked before any timing).
import { type Constructor, createMcpApp, Field, type McpApp, McpServer, Tool } from '@armature/core';
import { McpServer as SdkMcpServer } from '@modelcontextprotocol/server';
import { IsNumber } from 'class-validator';
import { z } from 'zod';

export const SERVER_INFO = { name: 'add-bench', version: '1.0.0' } as const;
export const ADD_DESCRIPTION = 'Adds two numbers';

export class AddInput {
  @Field({ description: 'The first addend' })
  @IsNumber()
  a!: number;

  @Field({ description: 'The second addend' })
  @IsNumber()
  b!: number;
}

@McpServer(SERVER_INFO)
export class AddServer {
  @Tool({ description: ADD_DESCRIPTION })
  add(input: AddInput) {
    return input.a + input.b;
  }
}

export function createArmatureApp(): McpApp {
  return createMcpApp(AddServer);
}

const addShape = { a: z.number().describe('The first addend'), b: z.number().describe('The second addend') };

/** The bare SDK server: `new McpServer` + `registerTool` with a zod input schema. */
export function createBareServer(extraTools = 0): SdkMcpServer {
  const server = new SdkMcpServer({ ...SERVER_INFO });
  server.registerTool('add', { description: ADD_DESCRIPTION, inputSchema: z.object(addShape) }, ({ a, b }) => ({
    content: [{ type: 'text', text: String(a + b) }],
  }));
  for (let i = 1; i <= extraTools; i++) {
    server.registerTool(`add_${i}`, { description: `${ADD_DESCRIPTION} (copy ${i})`, inputSchema: z.object(addShape) }, ({ a, b }) => ({
      content: [{ type: 'text', text: String(a + b) }],
    }));
  }
  return server;
}

/**
 * An `@McpServer` class with `add` plus `extraTools` copies (`add_1` … `add_N`), decorated exactly
 * as a hand-written class would be (`design:paramtypes` included), for the tools/list check.
 */
export function createManyToolsApp(extraTools: number): McpApp {
  class ManyToolsServer {
    add(input: AddInput) {
      return input.a + input.b;
    }
  }
  const proto = ManyToolsServer.prototype as unknown as Record<string, unknown>;
  const decorate = (name: string, description: string) => {
    const descriptor = Object.getOwnPropertyDescriptor(proto, name) as PropertyDescriptor;
    Reflect.decorate([Tool({ description }), Reflect.metadata('design:paramtypes', [AddInput])], proto, name, descriptor);
  };
  decorate('add', ADD_DESCRIPTION);
  for (let i = 1; i <= extraTools; i++) {
    const name = `add_${i}`;
    Object.defineProperty(proto, name, {
      value: function (this: unknown, input: AddInput) {
        return input.a + input.b;
      },
      writable: true,
      configurable: true,
    });
    decorate(name, `${ADD_DESCRIPTION} (copy ${i})`);
  }
  McpServer({ name: `add-bench-${extraTools + 1}-tools`, version: '1.0.0' })(ManyToolsServer);
  return createMcpApp(ManyToolsServer as Constructor);
}
