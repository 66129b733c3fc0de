import 'reflect-metadata';
import { Context, McpServer, Tool, ToolError } from '@armature/core';
import { IsInt } from 'class-validator';

// The server of engine-fronts.test.ts, in a module of its own so that a test can load it again
// with fresh modules (a session framing self-check run anew).

class Pair {
  @IsInt()
  a!: number;

  @IsInt()
  b!: number;
}

@McpServer({ name: 'fronts', version: '1.0.0' })
export class FrontServer {
  @Tool({ description: 'adds' })
  add(input: Pair) {
    return input.a + input.b;
  }

  @Tool({ description: 'an expected failure' })
  refuse() {
    throw new ToolError('No stock left', { sku: 'A1' });
  }

  @Tool({ description: 'logs, then answers' })
  async chatty(ctx: Context) {
    await ctx.log.info('working');
    return 'done';
  }
}
