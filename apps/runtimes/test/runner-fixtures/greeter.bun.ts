// The testing kit under `bun test` (run by test/test-runners.test.ts): a DTO alone, and the whole
// pipeline through the official client in memory with a provider replaced.
import { describe, expect, it } from 'bun:test';
import { buildDto, createTestingApp, expectDtoRejects, textOf } from '@armature/testing';
import { GreetInput } from '../fixtures/greeter/greet.input.js';
import { GreeterServer } from '../fixtures/greeter/greeter.server.js';
import { GreetingService } from '../fixtures/greeter/greeting.service.js';

describe('GreetInput', () => {
  it('builds from valid arguments', async () => {
    expect(await buildDto(GreetInput, { name: 'Ada' })).toBeInstanceOf(GreetInput);
  });

  it('rejects an empty name with the line a client gets', async () => {
    await expectDtoRejects(GreetInput, { name: '' }, ['name: must be longer than or equal to 1 characters']);
  });
});

describe('GreeterServer through the MCP client', () => {
  it('answers from the replaced service', async () => {
    const t = await createTestingApp({ servers: [GreeterServer] })
      .overrideProvider(GreetingService)
      .useValue({ greet: (name: string) => `Hi ${name} (from the fake)` })
      .compile();
    try {
      expect(textOf(await t.callTool('greet', { name: 'Ada' }))).toBe('Hi Ada (from the fake)');
    } finally {
      await t.close();
    }
  });
});
