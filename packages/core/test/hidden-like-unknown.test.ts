import { IsString } from 'class-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Complete, createMcpApp, type HttpListener, McpServer, Prompt, Resource, Tool, UseGuards } from '../src/index.js';
import { type Connected, connectInMemory } from './support/clients.js';
import { modernRpc } from './support/modern-rpc.js';

// A caller probing for entries a guard or a hidden tag hides must get exactly the answer an entry
// that does not exist gets, on every path, on both revisions: the name is the only difference.

const never = { canActivate: () => false };

class Topic {
  @Complete(() => ['roadmap'])
  @IsString()
  topic!: string;
}

@McpServer({ name: 'probed', version: '1.0.0' })
class ProbedServer {
  @UseGuards(never)
  @Tool({ description: 'guarded' })
  guarded_tool() {
    return 'x';
  }

  @Tool({ description: 'tagged', tags: ['admin'] })
  tagged_tool() {
    return 'x';
  }

  @Tool({ description: 'public' })
  open_tool() {
    return 'x';
  }

  @UseGuards(never)
  @Prompt({ description: 'guarded' })
  guarded_prompt(input: Topic) {
    return input.topic;
  }

  @Prompt({ description: 'tagged', tags: ['admin'] })
  tagged_prompt(input: Topic) {
    return input.topic;
  }

  @UseGuards(never)
  @Resource({ uri: 'probe://guarded', name: 'guarded' })
  guardedResource() {
    return 'x';
  }

  @Resource({ uri: 'probe://tagged', name: 'tagged', tags: ['admin'] })
  taggedResource() {
    return 'x';
  }
}

/** The error a call got, with the probed name written as NAME. */
const errorOf = async (call: Promise<unknown>, name: string) =>
  call.then(
    (result) => `answered ${JSON.stringify(result)}`,
    (error: { code?: number; message?: string; data?: unknown }) =>
      JSON.stringify({ code: error.code, message: error.message, data: error.data }).replaceAll(name, 'NAME'),
  );

const app = createMcpApp(ProbedServer, { hiddenTags: ['admin'] });
let connection: Connected;
let listener: HttpListener;
beforeAll(async () => {
  connection = await connectInMemory(app);
  listener = await app.listenHttp({ port: 0 });
});
afterAll(async () => {
  await connection.close();
  await listener.close();
  await app.close();
});

describe('guard-hidden and tag-hidden entries answer exactly like unknown ones', () => {
  it('2025-11-25: tools/call, prompts/get, resources/read and completion/complete', async () => {
    const c = connection.client;
    const probes = {
      'tools/call': (name: string) => c.callTool({ name, arguments: {} }),
      'prompts/get': (name: string) => c.getPrompt({ name, arguments: { topic: 'x' } }),
      'completion/complete': (name: string) => c.complete({ ref: { type: 'ref/prompt', name }, argument: { name: 'topic', value: 'r' } }),
      'resources/read': (name: string) => c.readResource({ uri: `probe://${name}` }),
    };
    const names: Record<keyof typeof probes, [string, string, string]> = {
      'tools/call': ['guarded_tool', 'tagged_tool', 'unknown_tool'],
      'prompts/get': ['guarded_prompt', 'tagged_prompt', 'unknown_prompt'],
      'completion/complete': ['guarded_prompt', 'tagged_prompt', 'unknown_prompt'],
      'resources/read': ['guarded', 'tagged', 'unknown'],
    };
    for (const [method, probe] of Object.entries(probes) as [keyof typeof probes, (name: string) => Promise<unknown>][]) {
      const [guarded, tagged, unknown] = names[method];
      const answers = [
        await errorOf(probe(guarded), guarded),
        await errorOf(probe(tagged), tagged),
        await errorOf(probe(unknown), unknown),
      ];
      expect([method, answers[0]]).toEqual([method, answers[2]]);
      expect([method, answers[1]]).toEqual([method, answers[2]]);
      expect(answers[2]).not.toMatch(/^answered/);
    }
  });

  it('2026-07-28 over HTTP: tools/call, prompts/get and resources/read', async () => {
    const probe = async (method: string, params: Record<string, unknown>, name: string) => {
      const answer = await modernRpc(listener.url, method, params);
      return `${answer.status} ${JSON.stringify(answer.body.error ?? answer.body.result)}`.replaceAll(name, 'NAME');
    };
    const cases: [string, (name: string) => Record<string, unknown>, [string, string, string]][] = [
      ['tools/call', (name) => ({ name, arguments: {} }), ['guarded_tool', 'tagged_tool', 'unknown_tool']],
      ['prompts/get', (name) => ({ name, arguments: { topic: 'x' } }), ['guarded_prompt', 'tagged_prompt', 'unknown_prompt']],
      ['resources/read', (name) => ({ uri: `probe://${name}` }), ['guarded', 'tagged', 'unknown']],
    ];
    for (const [method, params, [guarded, tagged, unknown]] of cases) {
      const answers = [
        await probe(method, params(guarded), guarded),
        await probe(method, params(tagged), tagged),
        await probe(method, params(unknown), unknown),
      ];
      expect([method, answers[0]]).toEqual([method, answers[2]]);
      expect([method, answers[1]]).toEqual([method, answers[2]]);
    }
  });
});
