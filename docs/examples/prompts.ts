import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { ArmatureBuildError, Context, createMcpApp, Field, image, McpServer, Prompt, Tool, text } from '@armature/core';
import type { ProtocolError } from '@modelcontextprotocol/client';
import { IsIn, IsInt, IsNumberString, IsOptional, IsString, MinLength } from 'class-validator';
import { connectInMemory, expectEqual, json } from './support/check.js';

// #region review
export class ReviewArgs {
  @Field('The code to review')
  @IsString()
  @MinLength(1)
  code!: string;

  @Field('Language of the code')
  @IsOptional()
  @IsIn(['typescript', 'python'])
  language?: string;

  @Field('How strict the review should be, 1 to 5')
  @IsNumberString() // prompt arguments are strings: validate the text, convert inside
  strictness: string = '3';
}

@McpServer({ name: 'review', version: '1.0.0' })
export class ReviewServer {
  @Prompt({ name: 'code_review', title: 'Code review', description: 'Review a piece of code' })
  review(args: ReviewArgs) {
    const language = args.language ?? 'code';
    return `Review this ${language} with strictness ${Number(args.strictness)}/5:\n\n${args.code}`;
  }
}
// #endregion

// #region return-types
@McpServer({ name: 'prompt-shapes', version: '1.0.0' })
export class PromptShapesServer {
  @Prompt({ description: 'A string' })
  aString() {
    return 'Summarise the report.';
  }

  @Prompt({ description: 'A content block' })
  aBlock() {
    return text('Describe this chart.');
  }

  @Prompt({ description: 'Several blocks' })
  blocks() {
    return [text('Describe this chart:'), image(new Uint8Array([137, 80]), 'image/png')];
  }

  @Prompt({ description: 'A conversation' })
  conversation() {
    return [
      { role: 'user', content: text('What is MCP?') },
      { role: 'assistant', content: text('A protocol for tools and context.') },
    ];
  }

  @Prompt({ description: 'A whole result' })
  whole() {
    return { description: 'Chosen by the method', messages: [{ role: 'user', content: text('Hi') }] };
  }
}
// #endregion

// #region not-a-string
export class BatchArgs {
  @IsInt()
  count!: number;
}

@McpServer({ name: 'batch', version: '1.0.0' })
export class BatchServer {
  @Prompt({ description: 'Plan a batch' })
  plan(args: BatchArgs) {
    return `Plan ${args.count} items`;
  }
}
// #endregion

// #region dynamic
@McpServer({ name: 'release', version: '1.0.0' })
export class ReleaseServer {
  @Prompt({ description: 'Draft the release notes' })
  release_notes() {
    return 'Draft the release notes from the merged pull requests.';
  }

  @Tool({ description: 'Publish the release' })
  publish() {
    return 'published';
  }
}
// #endregion

export const outputs: Record<string, string> = {
  'review-list': `{
  "prompts": [
    {
      "name": "code_review",
      "title": "Code review",
      "description": "Review a piece of code",
      "arguments": [
        {
          "name": "code",
          "required": true,
          "description": "The code to review"
        },
        {
          "name": "language",
          "required": false,
          "description": "Language of the code"
        },
        {
          "name": "strictness",
          "required": false,
          "description": "How strict the review should be, 1 to 5"
        }
      ]
    }
  ]
}`,
  'review-get': `{
  "description": "Review a piece of code",
  "messages": [
    {
      "role": "user",
      "content": {
        "type": "text",
        "text": "Review this typescript with strictness 3/5:\\n\\nconst x = 1;"
      }
    }
  ]
}`,
  'review-invalid': `Invalid arguments for prompt "code_review":
code: must be longer than or equal to 1 characters
strictness: must be a number string`,
  'unknown-prompt': 'Unknown prompt: "code_reveiw". Available prompts: code_review',
  'return-table': '',
  'not-a-string': `Armature cannot start the MCP server: 1 problem in the decorated classes.
  1. BatchServer.plan: BatchArgs.count is an integer, but prompt arguments are strings [ARM118]
     Fix: declare it \`@IsString() count!: string;\` and convert inside the prompt (e.g. Number(args.count))`,
};

/** What each PromptShapesServer method must produce, in declaration order (the page's table comes from these). */
function expectedResults(): Record<string, unknown> {
  return {
    aString: {
      description: 'A string',
      messages: [{ role: 'user', content: { type: 'text', text: 'Summarise the report.' } }],
    },
    aBlock: {
      description: 'A content block',
      messages: [{ role: 'user', content: { type: 'text', text: 'Describe this chart.' } }],
    },
    blocks: {
      description: 'Several blocks',
      messages: [
        { role: 'user', content: { type: 'text', text: 'Describe this chart:' } },
        { role: 'user', content: { type: 'image', data: 'iVA=', mimeType: 'image/png' } },
      ],
    },
    conversation: {
      description: 'A conversation',
      messages: [
        { role: 'user', content: { type: 'text', text: 'What is MCP?' } },
        { role: 'assistant', content: { type: 'text', text: 'A protocol for tools and context.' } },
      ],
    },
    whole: { description: 'Chosen by the method', messages: [{ role: 'user', content: { type: 'text', text: 'Hi' } }] },
  };
}

/** `| method returns | messages |`, one row per method of the return-types region (single-line returns only). */
function RETURN_TABLE(): string {
  const source = readFileSync(new URL(import.meta.url), 'utf8');
  const start = source.indexOf('// #region return-types');
  const region = source.slice(start, source.indexOf('// #endregion', start));
  const expected = expectedResults();
  const rows = [...region.matchAll(/^ {2}(\w+)\(\) \{\n {4}return ([\s\S]+?);\n {2}\}$/gm)].map(([, name, returned]) => {
    if (!((name as string) in expected)) throw new Error(`no expected result for ${name}`);
    const code = (returned as string)
      .replace(/\s*\n\s*/g, ' ')
      .replace(/\[ /g, '[')
      .replace(/,? \]/g, ']');
    return `| \`${code}\` | \`${JSON.stringify(expected[name as string])}\` |`;
  });
  if (rows.length !== Object.keys(expected).length) throw new Error('a return-types method was not understood');
  return ['| The method returns | The client receives |', '| --- | --- |', ...rows].join('\n');
}
outputs['return-table'] = RETURN_TABLE();

async function review(): Promise<void> {
  const { client, close } = await connectInMemory(createMcpApp(ReviewServer));
  try {
    // #region client-get
    const { prompts } = await client.listPrompts();
    const result = await client.getPrompt({ name: 'code_review', arguments: { code: 'const x = 1;', language: 'typescript' } });
    // #endregion
    expectEqual(json({ prompts }), JSON.parse(outputs['review-list'] as string), 'prompts/list');
    expectEqual(json(result), JSON.parse(outputs['review-get'] as string), 'prompts/get');

    const invalid = await client
      .getPrompt({ name: 'code_review', arguments: { code: '', strictness: 'high' } })
      .catch((error: ProtocolError) => error);
    expectEqual([invalid.code, invalid.message], [-32602, outputs['review-invalid']], 'invalid arguments');
    const unknown = await client.getPrompt({ name: 'code_reveiw' }).catch((error: ProtocolError) => error);
    expectEqual([unknown.code, unknown.message], [-32602, outputs['unknown-prompt']], 'unknown prompt');
    const extra = await client
      .getPrompt({ name: 'code_review', arguments: { code: 'x', tone: 'kind' } })
      .catch((error: ProtocolError) => error);
    expectEqual(
      [extra.code, extra.message],
      [-32602, 'Invalid arguments for prompt "code_review":\ntone: unknown property; remove it'],
      'undeclared argument',
    );
  } finally {
    await close();
  }
}

async function returnTypes(): Promise<void> {
  const { client, close } = await connectInMemory(createMcpApp(PromptShapesServer));
  try {
    for (const [name, expected] of Object.entries(expectedResults())) {
      expectEqual(json(await client.getPrompt({ name })), expected, `${name}() result`);
    }
  } finally {
    await close();
  }

  // Claims of the page: the Context, a prompt without a DTO, failures.
  @McpServer({ name: 'details', version: '1.0.0' })
  class DetailsServer {
    @Prompt({ description: 'Knows its request' })
    withContext(ctx: Context) {
      return `request ${typeof ctx.requestId}`;
    }
    @Prompt({ description: 'Fails' })
    fails(): string {
      throw new Error('template store offline');
    }
    @Prompt({ description: 'Returns nothing usable' })
    nothing() {
      return 42;
    }
    @Prompt({ description: 'Mixed', args: () => ReviewArgs, icons: [{ src: 'https://example.com/icon.png' }], _meta: { team: 'docs' } })
    mixed(args: unknown) {
      return [text(`code: ${(args as ReviewArgs).code}`), { role: 'assistant', content: text('Looking.') }];
    }
  }
  const details = await connectInMemory(createMcpApp(DetailsServer, { exposeErrors: true, onError: () => undefined }));
  try {
    const listed = (await details.client.listPrompts()).prompts[0];
    expectEqual(json(listed), { name: 'withContext', description: 'Knows its request' }, 'no DTO: no arguments');
    const mixed = (await details.client.listPrompts()).prompts.find((p) => p.name === 'mixed');
    expectEqual(
      [mixed?.icons, mixed?._meta, mixed?.arguments?.map((a) => a.name)],
      [[{ src: 'https://example.com/icon.png' }], { team: 'docs' }, ['code', 'language', 'strictness']],
      'icons, _meta, args: () => Dto',
    );
    expectEqual(
      json((await details.client.getPrompt({ name: 'mixed', arguments: { code: 'x' } })).messages),
      [
        { role: 'user', content: { type: 'text', text: 'code: x' } },
        { role: 'assistant', content: { type: 'text', text: 'Looking.' } },
      ],
      'blocks and messages mixed',
    );
    expectEqual(
      (await details.client.getPrompt({ name: 'withContext' })).messages[0]?.content,
      { type: 'text', text: 'request number' },
      'the Context',
    );
    const fails = await details.client.getPrompt({ name: 'fails' }).catch((error: ProtocolError) => error);
    expectEqual([fails.code, fails.message], [-32603, 'template store offline'], 'a thrown error');
    const nothing = await details.client.getPrompt({ name: 'nothing' }).catch((error: ProtocolError) => error);
    expectEqual(
      [nothing.code, nothing.message],
      [-32603, 'a prompt must return a string, content blocks, messages ({ role, content }) or { messages }'],
      'an unusable value',
    );
  } finally {
    await details.close();
  }
}

function notAString(): void {
  try {
    createMcpApp(BatchServer);
    throw new Error('expected a build error');
  } catch (error) {
    if (!(error instanceof ArmatureBuildError)) throw error;
    expectEqual(error.message, outputs['not-a-string'], 'non-string argument');
  }
  @McpServer({ name: 'names', version: '1.0.0' })
  class NamesServer {
    @Prompt({ name: 'code review', description: 'bad name' })
    a() {
      return 'a';
    }
  }
  @McpServer({ name: 'other', version: '1.0.0' })
  class OtherServer {
    @Prompt({ name: 'code_review', description: 'clash' })
    b() {
      return 'b';
    }
  }
  try {
    createMcpApp([NamesServer, ReviewServer, OtherServer]);
    throw new Error('expected a build error');
  } catch (error) {
    if (!(error instanceof ArmatureBuildError)) throw error;
    expectEqual(
      error.problems.map((p) => p.message),
      [
        'the prompt name "code review" is invalid: a name is 1-128 characters of A-Z a-z 0-9 _ . -',
        'the prompt name "code_review" is already used by ReviewServer.review',
      ],
      'prompt names',
    );
  }
}

async function dynamic(): Promise<void> {
  const app = createMcpApp(ReleaseServer);
  const { client, close } = await connectInMemory(app);
  try {
    const changes: string[] = [];
    client.setNotificationHandler('notifications/prompts/list_changed', () => {
      changes.push('prompts');
    });
    client.setNotificationHandler('notifications/tools/list_changed', () => {
      changes.push('tools');
    });
    // #region switch
    app.prompts.disable('release_notes'); // hidden from prompts/list; prompts/get answers "Unknown prompt"
    app.tools.disable('publish'); // the same for tools, by name
    // ... once the release is ready:
    app.prompts.enable('release_notes');
    app.tools.enable('publish');
    // #endregion
    app.prompts.disable('release_notes');
    app.tools.disable('publish');
    const prompts = (await client.listPrompts()).prompts;
    const tools = (await client.listTools()).tools;
    const got = await client.getPrompt({ name: 'release_notes' }).catch((error: ProtocolError) => [error.code, error.message]);
    const called = await client.callTool({ name: 'publish', arguments: {} }).catch((error: ProtocolError) => error.message);
    expectEqual(
      [prompts, tools, got],
      [[], [], [-32602, 'Unknown prompt: "release_notes". Available prompts: none']],
      'disabled: unknown, and left out of the list in the message',
    );
    expectEqual(called, 'Unknown tool: "publish". Available tools: none', 'a disabled tool is unknown');
    app.prompts.remove('release_notes');
    await sleep(50);
    expectEqual(changes, ['prompts', 'tools', 'prompts', 'tools', 'prompts', 'tools', 'prompts'], 'one notification per change');
  } finally {
    await close();
  }
}

export async function main(): Promise<void> {
  expectEqual(RETURN_TABLE(), outputs['return-table'], 'return table');
  await review();
  await returnTypes();
  notAString();
  await dynamic();
}
