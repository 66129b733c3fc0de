import { Context, createMcpApp, McpServer, Resource, Tool } from '@armature/core';
import { Client, type CreateMessageRequestParams, ProtocolError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { IsString, MaxLength } from 'class-validator';
import { expectEqual, json } from './support/check.js';

// #region server
export class NoteInput {
  @IsString()
  @MaxLength(10_000)
  text!: string;
}

@McpServer({ name: 'notes', version: '1.0.0' })
export class NotesServer {
  @Tool({ description: "Summarise a note with the client's model" })
  async summarise(input: NoteInput, ctx: Context) {
    const reply = await ctx.sample(`Summarise in one sentence:\n\n${input.text}`, {
      maxTokens: 100,
      systemPrompt: 'You write terse summaries.',
    });
    return reply.content.type === 'text' ? reply.content.text : '(the model answered without text)';
  }

  @Tool({ description: 'Classify a note, preferring a fast model' })
  async classify(input: NoteInput, ctx: Context) {
    // The full request form: several messages, model preferences, temperature.
    const reply = await ctx.sample({
      messages: [
        { role: 'user', content: { type: 'text', text: 'Answer with one word: bug, feature or question.' } },
        { role: 'user', content: { type: 'text', text: input.text } },
      ],
      maxTokens: 5,
      temperature: 0,
      modelPreferences: { speedPriority: 1, hints: [{ name: 'haiku' }] },
    });
    return { label: reply.content.type === 'text' ? reply.content.text : undefined, model: reply.model };
  }

  @Tool({ description: 'List the folders the client shares with this server' })
  async workspace(ctx: Context) {
    const roots = await ctx.roots();
    return roots.map((root) => `${root.name ?? '(unnamed)'}: ${root.uri}`).join('\n');
  }
}
// #endregion

// #region client
const requests: CreateMessageRequestParams[] = []; // every request the server made, for the example's checks

export function assistantClient(modern: boolean) {
  const client = new Client(
    { name: 'my-client', version: '1.0.0' },
    {
      capabilities: { sampling: {}, roots: {} },
      ...(modern ? { versionNegotiation: { mode: 'auto' as const } } : {}),
    },
  );
  client.setRequestHandler('sampling/createMessage', async (request) => {
    // A real client asks the user to approve, calls its model, and may show the reply first.
    requests.push(request.params);
    const last = request.params.messages.at(-1)?.content as { text?: string };
    const text = last.text?.includes('bug') ? 'bug' : 'A short summary.';
    return { role: 'assistant', model: 'example-model-1', content: { type: 'text', text } };
  });
  client.setRequestHandler('roots/list', async () => ({
    roots: [{ uri: 'file:///home/ada/projects/site', name: 'site' }],
  }));
  return client;
}
// #endregion

export const outputs: Record<string, string> = {
  'sample-request': `{
  "messages": [
    {
      "role": "user",
      "content": {
        "type": "text",
        "text": "Summarise in one sentence:\\n\\nThe deploy failed twice because the cache was cold."
      }
    }
  ],
  "maxTokens": 100,
  "systemPrompt": "You write terse summaries."
}`,
  'no-sampling': 'This tool needs sampling, which the client did not declare in its capabilities',
};

type ToolResult = Awaited<ReturnType<Client['callTool']>>;
const textOf = (result: ToolResult) => (result.content as Array<{ text: string }>)[0]?.text;

export async function main(): Promise<void> {
  const listener = await createMcpApp(NotesServer).listenHttp({ port: 0 });
  try {
    for (const [modern, revision] of [
      [false, '2025-11-25'],
      [true, '2026-07-28'],
    ] as const) {
      requests.length = 0;
      const client = assistantClient(modern);
      await client.connect(new StreamableHTTPClientTransport(new URL(listener.url)));
      try {
        expectEqual(client.getNegotiatedProtocolVersion(), revision, 'revision');
        const summary = await client.callTool({
          name: 'summarise',
          arguments: { text: 'The deploy failed twice because the cache was cold.' },
        });
        expectEqual(textOf(summary), 'A short summary.', `${revision}: summarise`);
        expectEqual(json(requests), [JSON.parse(outputs['sample-request'] as string)], `${revision}: the sampling request`);

        requests.length = 0;
        const label = await client.callTool({ name: 'classify', arguments: { text: 'It crashes on start: a bug?' } });
        expectEqual(label.structuredContent, { label: 'bug', model: 'example-model-1' }, `${revision}: classify`);
        expectEqual(
          [requests[0]?.messages.length, requests[0]?.maxTokens, requests[0]?.temperature, requests[0]?.modelPreferences],
          [2, 5, 0, { speedPriority: 1, hints: [{ name: 'haiku' }] }],
          `${revision}: the full form is sent as given`,
        );

        const roots = await client.callTool({ name: 'workspace', arguments: {} });
        expectEqual(textOf(roots), 'site: file:///home/ada/projects/site', `${revision}: roots`);
      } finally {
        await client.close();
      }

      // Without the capabilities.
      const plain = new Client({ name: 'plain', version: '1.0.0' }, modern ? { versionNegotiation: { mode: 'auto' } } : {});
      await plain.connect(new StreamableHTTPClientTransport(new URL(listener.url)));
      try {
        const outcomes: Array<[unknown, unknown]> = [];
        for (const name of ['summarise', 'workspace']) {
          const outcome = await plain.callTool({ name, arguments: { ...(name === 'summarise' ? { text: 'x' } : {}) } }).then(
            (r): [unknown, unknown] => [r.isError, textOf(r)],
            (e: ProtocolError): [unknown, unknown] => [e.code, `${e.message} ${JSON.stringify(e.data)}`],
          );
          outcomes.push(outcome);
        }
        const roots = 'This tool needs roots, which the client did not declare in its capabilities';
        expectEqual(
          outcomes,
          modern
            ? [
                [-32021, `${outputs['no-sampling']} {"requiredCapabilities":{"sampling":{}}}`],
                [-32021, `${roots} {"requiredCapabilities":{"roots":{}}}`],
              ]
            : [
                [true, outputs['no-sampling']],
                [true, roots],
              ],
          `${revision}: missing capabilities`,
        );
      } finally {
        await plain.close();
      }
    }
  } finally {
    await listener.close();
  }

  // A string without maxTokens asks for 1000; on 2026-07-28 the method runs again once answered.
  let runs = 0;
  @McpServer({ name: 'defaults', version: '1.0.0' })
  class DefaultsServer {
    @Tool({ description: 'Asks without options' })
    async ask(ctx: Context) {
      runs++;
      const reply = await ctx.sample('Hello?');
      const roots = await ctx.roots();
      return `${reply.model} ${roots.length}`;
    }
    @Resource({ uri: 'defaults://roots', name: 'roots' })
    async rootsResource(ctx: Context) {
      return JSON.stringify(await ctx.roots());
    }
  }
  const reported: unknown[] = [];
  const defaults = await createMcpApp(DefaultsServer, { onError: (error) => reported.push(error) }).listenHttp({ port: 0 });
  try {
    for (const [modern, expectedRuns] of [
      [false, 1],
      [true, 3],
    ] as const) {
      const client = assistantClient(modern);
      await client.connect(new StreamableHTTPClientTransport(new URL(defaults.url)));
      try {
        requests.length = 0;
        runs = 0;
        expectEqual(textOf(await client.callTool({ name: 'ask', arguments: {} })), 'example-model-1 1', 'sample then roots');
        expectEqual(
          json(requests),
          [{ messages: [{ role: 'user', content: { type: 'text', text: 'Hello?' } }], maxTokens: 1000 }],
          'maxTokens defaults to 1000',
        );
        expectEqual(runs, expectedRuns, `runs (${modern ? '2026-07-28' : '2025-11-25'})`);
        const read = await client.readResource({ uri: 'defaults://roots' }).then(
          (r) => (r.contents[0] as { text: string }).text,
          (e: ProtocolError) => [e.code, e.message],
        );
        expectEqual(
          read,
          JSON.stringify([{ uri: 'file:///home/ada/projects/site', name: 'site' }]),
          'roots from a resource, on both revisions',
        );
        expectEqual(reported, [], 'not reported to onError');
      } finally {
        await client.close();
      }
    }
  } finally {
    await defaults.close();
  }
}
