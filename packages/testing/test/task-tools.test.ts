import { Context, Field, McpServer, Tool } from '@armature/core';
import { IsBoolean } from 'class-validator';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestContext, createTestingApp, type TestingApp, textOf } from '../src/index.js';

// A task tool that asks a question mid-task, tested with the testing kit: the same handler code runs
// as a task over 2026-07-28 (inputRequests) or 2025-11-25 (requests tied to the task), and here.

class Approval {
  @Field('Publish it?')
  @IsBoolean()
  publish!: boolean;
}

@McpServer({ name: 'releases', version: '1.0.0' })
class Releases {
  @Tool({ description: 'Builds, asks, publishes', task: 'optional' })
  async release(ctx: Context) {
    await ctx.progress(1, 2, 'built');
    const answer = await ctx.elicit('Publish?', Approval);
    await ctx.progress(2, 2, 'done');
    return answer.action === 'accept' && answer.content.publish ? 'published' : 'kept';
  }
}

let app: TestingApp | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

describe('a task tool that asks a question, in the testing kit', () => {
  it('runs on a test context, its question answered from the script', async () => {
    const ctx = createTestContext({ elicit: [{ action: 'accept', content: { publish: true } }] });
    expect(await new Releases().release(ctx)).toBe('published');
    expect(ctx.elicitations.map((e) => e.message)).toEqual(['Publish?']);
    expect(ctx.progressUpdates).toEqual([
      { progress: 1, total: 2, message: 'built' },
      { progress: 2, total: 2, message: 'done' },
    ]);
  });

  it('runs through a TestingApp as an ordinary call, its question answered by the test client', async () => {
    app = await createTestingApp({ servers: Releases, clientCapabilities: { elicitation: {} } }).compile();
    app.client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { publish: false } }));
    expect(textOf(await app.callTool('release'))).toBe('kept');
  });
});
