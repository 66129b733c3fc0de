import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { IsString } from 'class-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Complete,
  Context,
  createMcpApp,
  Field,
  type HttpListener,
  McpServer,
  Prompt,
  Resource,
  ResourceTemplate,
  Tool,
} from '../src/index.js';

class Topic {
  @Field('What to write about')
  @Complete((value) => ['mcp', 'typescript', 'decorators'].filter((t) => t.startsWith(value)))
  @IsString()
  topic!: string;
}

class Account {
  @Field('Account name')
  @IsString()
  name!: string;
}

@McpServer({ name: 'v1-surface', version: '1.0.0' })
class SurfaceServer {
  @Resource({ uri: 'test://hello', name: 'hello', mimeType: 'text/plain' })
  hello() {
    return 'hello';
  }

  @ResourceTemplate({ uriTemplate: 'topics://{topic}', name: 'topic' })
  topicPage(params: Topic) {
    return `page about ${params.topic}`;
  }

  @Prompt({ description: 'Write about a topic' })
  write(args: Topic) {
    return `Write a paragraph about ${args.topic}.`;
  }

  @Tool({ description: 'asks, samples, lists roots' })
  async everything(ctx: Context) {
    const account = await ctx.elicit('Which account?', Account);
    const reply = await ctx.sample('Say hi', { maxTokens: 10 });
    const roots = await ctx.roots();
    return {
      account: account.action === 'accept' ? account.content.name : account.action,
      reply: reply.content.type === 'text' ? reply.content.text : '',
      roots: roots.map((r) => r.uri),
    };
  }
}

let listener: HttpListener;
let client: V1Client;
beforeAll(async () => {
  listener = await createMcpApp(SurfaceServer).listenHttp({ port: 0 });
  client = new V1Client({ name: 'v1', version: '1.32.2' }, { capabilities: { elicitation: {}, sampling: {}, roots: {} } });
  client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { name: 'acme' } }));
  client.setRequestHandler(CreateMessageRequestSchema, async () => ({
    role: 'assistant',
    model: 'm',
    content: { type: 'text', text: 'hi!' },
  }));
  client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: 'file:///repo' }] }));
  await client.connect(new V1Transport(new URL(listener.url)));
});
afterAll(async () => {
  await client.close();
  await listener.close();
});

describe('the whole surface through the v1 client (1.32.2) over HTTP', () => {
  it('resources, templates, prompts and completions', async () => {
    expect((await client.readResource({ uri: 'test://hello' })).contents).toEqual([
      { uri: 'test://hello', mimeType: 'text/plain', text: 'hello' },
    ]);
    expect((await client.readResource({ uri: 'topics://mcp' })).contents).toEqual([{ uri: 'topics://mcp', text: 'page about mcp' }]);
    expect((await client.listPrompts()).prompts).toEqual([
      {
        name: 'write',
        description: 'Write about a topic',
        arguments: [{ name: 'topic', description: 'What to write about', required: true }],
      },
    ]);
    expect((await client.getPrompt({ name: 'write', arguments: { topic: 'mcp' } })).messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'Write a paragraph about mcp.' } },
    ]);
    const prompt = await client.complete({ ref: { type: 'ref/prompt', name: 'write' }, argument: { name: 'topic', value: 't' } });
    expect(prompt.completion.values).toEqual(['typescript']);
    const template = await client.complete({
      ref: { type: 'ref/resource', uri: 'topics://{topic}' },
      argument: { name: 'topic', value: 'd' },
    });
    expect(template.completion.values).toEqual(['decorators']);
  });

  it('elicitation, sampling and roots from one tool', async () => {
    const result = await client.callTool({ name: 'everything', arguments: {} });
    expect(result.structuredContent).toEqual({ account: 'acme', reply: 'hi!', roots: ['file:///repo'] });
  });
});
