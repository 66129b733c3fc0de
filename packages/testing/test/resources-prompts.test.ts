import { Field, McpServer, Prompt, Resource, ResourceTemplate } from '@armature/core';
import { IsString, Length } from 'class-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestingApp, type TestingApp } from '../src/index.js';

class CityParams {
  @Field('City name')
  @IsString()
  @Length(1, 20)
  city!: string;
}

class SummaryArgs {
  @Field('Text to summarise')
  @IsString()
  @Length(1, 50)
  text!: string;
}

@McpServer({ name: 'docs', version: '1.0.0' })
class DocsServer {
  @Resource({ uri: 'docs://readme', name: 'readme', mimeType: 'text/markdown' })
  readme() {
    return '# Read me';
  }

  @ResourceTemplate({ uriTemplate: 'docs://cities/{city}', name: 'city', mimeType: 'application/json' })
  city(params: CityParams) {
    return JSON.stringify(params);
  }

  @Prompt({ name: 'summarise', description: 'Summarise a text' })
  summarise(args: SummaryArgs) {
    return `Summarise: ${args.text}`;
  }
}

describe('resources and prompts through the testing app', () => {
  let t: TestingApp;
  beforeAll(async () => {
    t = await createTestingApp({ servers: [DocsServer] }).compile();
  });
  afterAll(() => t.close());

  it('reads fixed and templated resources', async () => {
    expect(await t.readResource('docs://readme')).toEqual({
      contents: [{ uri: 'docs://readme', mimeType: 'text/markdown', text: '# Read me' }],
    });
    expect(await t.readResource('docs://cities/Oslo')).toEqual({
      contents: [{ uri: 'docs://cities/Oslo', mimeType: 'application/json', text: '{"city":"Oslo"}' }],
    });
  });

  it('rejects unknown URIs and invalid template variables with the protocol error', async () => {
    await expect(t.readResource('docs://nope')).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('Resource not found'),
    });
    await expect(t.readResource(`docs://cities/${'x'.repeat(21)}`)).rejects.toMatchObject({
      code: -32602,
      message: 'Invalid arguments for resource template "city":\ncity: must be shorter than or equal to 20 characters',
    });
  });

  it('gets prompts, and rejects invalid arguments', async () => {
    expect(await t.getPrompt('summarise', { text: 'hello' })).toEqual({
      description: 'Summarise a text',
      messages: [{ role: 'user', content: { type: 'text', text: 'Summarise: hello' } }],
    });
    await expect(t.getPrompt('summarise', { text: 'x'.repeat(51) })).rejects.toMatchObject({
      code: -32602,
      message: 'Invalid arguments for prompt "summarise":\ntext: must be shorter than or equal to 50 characters',
    });
    await expect(t.getPrompt('summarise', {})).rejects.toMatchObject({
      code: -32602,
      message: expect.stringMatching(/^Invalid arguments for prompt "summarise":\ntext: /),
    });
  });
});
