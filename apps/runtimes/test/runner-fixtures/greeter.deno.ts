// The testing kit under `deno test` (run by test/test-runners.test.ts): a DTO alone, and the whole
// pipeline through the official client in memory with a provider replaced.
import assert from 'node:assert/strict';
import { buildDto, createTestingApp, expectDtoRejects, textOf } from '@armature/testing';
import { GreetInput } from '../fixtures/greeter/greet.input.js';
import { GreeterServer } from '../fixtures/greeter/greeter.server.js';
import { GreetingService } from '../fixtures/greeter/greeting.service.js';

Deno.test('GreetInput builds from valid arguments', async () => {
  assert.ok((await buildDto(GreetInput, { name: 'Ada' })) instanceof GreetInput);
});

Deno.test('GreetInput rejects an empty name with the line a client gets', async () => {
  await expectDtoRejects(GreetInput, { name: '' }, ['name: must be longer than or equal to 1 characters']);
});

Deno.test('GreeterServer answers from the replaced service, through the MCP client', async () => {
  const t = await createTestingApp({ servers: [GreeterServer] })
    .overrideProvider(GreetingService)
    .useValue({ greet: (name: string) => `Hi ${name} (from the fake)` })
    .compile();
  try {
    assert.equal(textOf(await t.callTool('greet', { name: 'Ada' })), 'Hi Ada (from the fake)');
  } finally {
    await t.close();
  }
});
