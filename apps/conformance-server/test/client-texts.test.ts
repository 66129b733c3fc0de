/**
 * The exact names, texts and schemas the conformance scenarios describe, checked through the
 * official clients (v1 SDK 1.32.2; v2 client 2.4.0 on 2025-11-25 and on 2026-07-28) over HTTP
 * against the built server (`node dist/main.js`). The suite itself only checks shapes, and two of
 * its scenarios pass even when the tool is missing; these tests do not.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { JSON_SCHEMA_2020_12_INPUT } from '../src/tools.server.js';
import { connectV1, connectV2, type Json, type Progress, type Session } from './support/clients.js';
import { type HttpServer, killStarted, startHttpServer } from './support/processes.js';

const SUITE_TOOLS = [
  'test_simple_text',
  'test_image_content',
  'test_audio_content',
  'test_embedded_resource',
  'test_multiple_content_types',
  'test_tool_with_logging',
  'test_error_handling',
  'test_tool_with_progress',
  'test_sampling',
  'test_elicitation',
  'test_elicitation_sep1034_defaults',
  'test_elicitation_sep1330_enums',
  'json_schema_2020_12_tool',
  'test_reconnection',
  // 0.2 line: multi-round-trip (SEP-2322) and stateless diagnostics (SEP-2575)
  'test_input_required_result_elicitation',
  'test_input_required_result_sampling',
  'test_input_required_result_list_roots',
  'test_input_required_result_request_state',
  'test_input_required_result_multiple_inputs',
  'test_input_required_result_multi_round',
  'test_input_required_result_tampered_state',
  'test_input_required_result_capabilities',
  'test_missing_capability',
  'test_streaming_elicitation',
  'test_logging_tool',
  'test_trigger_tool_change',
  'test_trigger_prompt_change',
];
const EXTRA_TOOLS = ['test_long_running', 'test_header_params'];

const PNG_SIGNATURE = '89504e470d0a1a0a';

function isPng1x1(base64: string | undefined): boolean {
  const bytes = Buffer.from(base64 ?? '', 'base64');
  return bytes.subarray(0, 8).toString('hex') === PNG_SIGNATURE && bytes.readUInt32BE(16) === 1 && bytes.readUInt32BE(20) === 1;
}

function isWav(base64: string | undefined): boolean {
  const bytes = Buffer.from(base64 ?? '', 'base64');
  return (
    bytes.toString('ascii', 0, 4) === 'RIFF' && bytes.toString('ascii', 8, 12) === 'WAVE' && bytes.readUInt32LE(4) === bytes.length - 8
  );
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let server: HttpServer;

beforeAll(async () => {
  server = await startHttpServer();
});

afterAll(async () => {
  await server?.stop();
  killStarted();
});

const setups = [
  { name: 'v1 client (sdk 1.32.2), 2025-11-25', modern: false, connect: (url: string) => connectV1(url) },
  { name: 'v2 client (client 2.4.0), 2025-11-25', modern: false, connect: (url: string) => connectV2(url, false) },
  { name: 'v2 client (client 2.4.0), 2026-07-28', modern: true, connect: (url: string) => connectV2(url, true) },
];

describe.each(setups)('$name over HTTP', ({ connect, modern }) => {
  let s: Session;

  beforeAll(async () => {
    s = await connect(server.url);
  });
  afterAll(async () => {
    await s?.close();
  });

  it('negotiates the expected revision (a session on 2025-11-25, none on 2026-07-28)', () => {
    expect(s.protocolVersion()).toBe(s.modern ? '2026-07-28' : '2025-11-25');
    if (s.modern) expect(s.sessionId()).toBeUndefined();
    else expect(s.sessionId()).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('lists every tool the suite calls, each with a description and an object inputSchema', async () => {
    const tools = await s.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining([...SUITE_TOOLS, ...EXTRA_TOOLS]));
    for (const tool of tools) {
      expect(tool.description, tool.name).toEqual(expect.any(String));
      expect(tool.inputSchema.type, tool.name).toBe('object');
    }
  });

  it('lists the resources, the template and the prompts with descriptions', async () => {
    const resources = await s.listResources();
    expect(resources.map((r) => r.uri)).toEqual(
      expect.arrayContaining(['test://static-text', 'test://static-binary', 'test://watched-resource']),
    );
    for (const r of resources) expect(r.description, r.uri).toEqual(expect.any(String));
    expect(await s.listResourceTemplates()).toContainEqual(
      expect.objectContaining({ uriTemplate: 'test://template/{id}/data', name: 'template', mimeType: 'application/json' }),
    );
    const prompts = await s.listPrompts();
    const byName = new Map(prompts.map((p) => [p.name, p]));
    expect([...byName.keys()]).toEqual(
      expect.arrayContaining([
        'test_simple_prompt',
        'test_prompt_with_arguments',
        'test_prompt_with_embedded_resource',
        'test_prompt_with_image',
      ]),
    );
    for (const p of prompts) expect(p.description, p.name).toEqual(expect.any(String));
    expect(byName.get('test_prompt_with_arguments')?.arguments).toEqual([
      { name: 'arg1', description: 'First test argument', required: true },
      { name: 'arg2', description: 'Second test argument', required: true },
    ]);
    expect(byName.get('test_prompt_with_embedded_resource')?.arguments).toEqual([
      { name: 'resourceUri', description: 'URI of the resource to embed', required: true },
    ]);
  });

  it('test_simple_text: exactly the scenario text', async () => {
    const result = await s.callTool('test_simple_text');
    expect(result.isError).toBeFalsy();
    expect(result.content).toEqual([{ type: 'text', text: 'This is a simple text response for testing.' }]);
  });

  it('test_image_content / test_audio_content: a 1x1 PNG and a WAV', async () => {
    const imageResult = await s.callTool('test_image_content');
    expect(imageResult.content).toEqual([{ type: 'image', mimeType: 'image/png', data: expect.any(String) }]);
    expect(isPng1x1(imageResult.content[0]?.data)).toBe(true);
    const audioResult = await s.callTool('test_audio_content');
    expect(audioResult.content).toEqual([{ type: 'audio', mimeType: 'audio/wav', data: expect.any(String) }]);
    expect(isWav(audioResult.content[0]?.data)).toBe(true);
  });

  it('test_embedded_resource and test_multiple_content_types: the scenario contents', async () => {
    expect((await s.callTool('test_embedded_resource')).content).toEqual([
      {
        type: 'resource',
        resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' },
      },
    ]);
    const mixed = await s.callTool('test_multiple_content_types');
    expect(mixed.content).toEqual([
      { type: 'text', text: 'Multiple content types test:' },
      { type: 'image', mimeType: 'image/png', data: expect.any(String) },
      {
        type: 'resource',
        resource: { uri: 'test://mixed-content-resource', mimeType: 'application/json', text: '{"test":"data","value":123}' },
      },
    ]);
    expect(isPng1x1(mixed.content[1]?.data)).toBe(true);
  });

  it('test_error_handling: a tool result with isError and the scenario text, not a JSON-RPC error', async () => {
    const result = await s.callTool('test_error_handling');
    expect(result).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: 'This tool intentionally returns an error for testing' }],
    });
  });

  it('test_tool_with_logging: three info messages during the call', async () => {
    if (!s.modern) expect(await s.setLoggingLevel('debug')).toEqual({});
    const before = s.notifications.length;
    const result = await s.callTool('test_tool_with_logging', {}, { logLevel: 'debug' });
    expect(result.content).toEqual([{ type: 'text', text: 'Tool with logging executed successfully' }]);
    const logs = () => s.notifications.slice(before).filter((n) => n.method === 'notifications/message');
    await vi.waitFor(() => expect(logs().length).toBeGreaterThanOrEqual(3), { timeout: 10_000 });
    expect(logs().map((n) => ({ level: n.params.level, data: n.params.data }))).toEqual([
      { level: 'info', data: 'Tool execution started' },
      { level: 'info', data: 'Tool processing data' },
      { level: 'info', data: 'Tool execution completed' },
    ]);
  });

  it('test_tool_with_progress: 0, 50, 100 of 100', async () => {
    const seen: Progress[] = [];
    const result = await s.callTool('test_tool_with_progress', {}, { onprogress: (p) => seen.push(p) });
    expect(result.content).toEqual([{ type: 'text', text: 'Tool with progress executed successfully' }]);
    expect(seen).toEqual([
      { progress: 0, total: 100, message: 'Completed step 0 of 100' },
      { progress: 50, total: 100, message: 'Completed step 50 of 100' },
      { progress: 100, total: 100, message: 'Completed step 100 of 100' },
    ]);
  });

  it('test_sampling: one user message with the prompt, maxTokens 100; answers "LLM response: ..."', async () => {
    s.answers.sampling = () => ({
      role: 'assistant',
      content: { type: 'text', text: 'Paris.' },
      model: 'test-model',
      stopReason: 'endTurn',
    });
    const before = s.serverRequests.length;
    const result = await s.callTool('test_sampling', { prompt: 'Capital of France?' });
    expect(result.content).toEqual([{ type: 'text', text: 'LLM response: Paris.' }]);
    expect(s.serverRequests.slice(before)).toEqual([
      {
        method: 'sampling/createMessage',
        params: expect.objectContaining({
          messages: [{ role: 'user', content: { type: 'text', text: 'Capital of France?' } }],
          maxTokens: 100,
        }),
      },
    ]);
  });

  it('test_elicitation: asks for username and email (both required strings) and reports the answer', async () => {
    s.answers.elicitation = () => ({ action: 'accept', content: { username: 'testuser', email: 'test@example.com' } });
    const before = s.serverRequests.length;
    const result = await s.callTool('test_elicitation', { message: 'Please provide your information' });
    expect(result.content).toEqual([
      { type: 'text', text: 'User response: action=accept, content={"username":"testuser","email":"test@example.com"}' },
    ]);
    const [request] = s.serverRequests.slice(before);
    expect(request?.method).toBe('elicitation/create');
    expect(request?.params).toMatchObject({ message: 'Please provide your information' });
    const schema = request?.params.requestedSchema as Json;
    expect(schema).toMatchObject({
      type: 'object',
      properties: {
        username: { type: 'string', description: "User's response" },
        email: { type: 'string', description: "User's email address" },
      },
    });
    expect([...(schema.required as string[])].sort()).toEqual(['email', 'username']);

    s.answers.elicitation = () => ({ action: 'decline' });
    expect((await s.callTool('test_elicitation', { message: 'Again?' })).content).toEqual([
      { type: 'text', text: 'User response: action=decline, content={}' },
    ]);
  });

  it('test_elicitation_sep1034_defaults: a default for each primitive type', async () => {
    s.answers.elicitation = () => ({
      action: 'accept',
      content: { name: 'Jane Smith', age: 25, score: 88, status: 'inactive', verified: false },
    });
    const before = s.serverRequests.length;
    const result = await s.callTool('test_elicitation_sep1034_defaults');
    expect(result.content).toEqual([
      {
        type: 'text',
        text: 'Elicitation completed: action=accept, content={"name":"Jane Smith","age":25,"score":88,"status":"inactive","verified":false}',
      },
    ]);
    expect(s.serverRequests[before]?.params.requestedSchema).toEqual({
      type: 'object',
      properties: {
        name: { type: 'string', description: 'User name', default: 'John Doe' },
        age: { type: 'integer', description: 'User age', default: 30 },
        score: { type: 'number', description: 'User score', default: 95.5 },
        status: { type: 'string', description: 'User status', enum: ['active', 'inactive', 'pending'], default: 'active' },
        verified: { type: 'boolean', description: 'Verification status', default: true },
      },
      required: [],
    });
  });

  it('test_elicitation_sep1330_enums: the five enum variants', async () => {
    s.answers.elicitation = () => ({ action: 'cancel' });
    const before = s.serverRequests.length;
    const result = await s.callTool('test_elicitation_sep1330_enums');
    expect(result.content).toEqual([{ type: 'text', text: 'Elicitation completed: action=cancel, content={}' }]);
    const schema = s.serverRequests[before]?.params.requestedSchema as Json | undefined;
    const properties = (schema?.properties ?? {}) as Record<string, Json>;
    expect(properties.untitledSingle).toEqual({
      type: 'string',
      description: 'Select one option',
      enum: ['option1', 'option2', 'option3'],
    });
    expect(properties.titledSingle).toMatchObject({ type: 'string', oneOf: [{ const: 'value1', title: 'First Option' }, {}, {}] });
    expect(properties.titledSingle).not.toHaveProperty('enum');
    expect(properties.legacyEnum).toMatchObject({
      type: 'string',
      enum: ['opt1', 'opt2', 'opt3'],
      enumNames: ['Option One', 'Option Two', 'Option Three'],
    });
    expect(properties.untitledMulti).toMatchObject({ type: 'array', items: { type: 'string', enum: ['option1', 'option2', 'option3'] } });
    expect(properties.titledMulti).toMatchObject({ type: 'array', items: { anyOf: [{ const: 'value1', title: 'First Choice' }, {}, {}] } });
    expect(properties.titledMulti?.items).not.toHaveProperty('enum');
  });

  it('json_schema_2020_12_tool: the inputSchema is listed exactly as written, and enforced', async () => {
    const tool = (await s.listTools()).find((t) => t.name === 'json_schema_2020_12_tool');
    expect(tool?.inputSchema).toEqual(JSON_SCHEMA_2020_12_INPUT);
    const ok = await s.callTool('json_schema_2020_12_tool', { name: 'Ada', address: { city: 'London' }, email: 'ada@example.com' });
    expect(ok.content).toEqual([
      { type: 'text', text: 'JSON Schema 2020-12 tool called with: {"name":"Ada","address":{"city":"London"},"email":"ada@example.com"}' },
    ]);
    const rejected = await s.callTool('json_schema_2020_12_tool', { name: 'Ada', nickname: 'A', email: 'a@example.com' });
    expect(rejected.isError).toBe(true);
    expect(rejected.content[0]?.text).toContain('nickname');
    // if/then/else is enforced too: a phone contact needs a phone number.
    const noPhone = await s.callTool('json_schema_2020_12_tool', { contactMethod: 'phone', email: 'a@example.com' });
    expect(noPhone.isError).toBe(true);
    expect(noPhone.content[0]?.text).toContain('phone');
  });

  it('test_input_required_result_*: the scenario texts, the answers used (input_required rounds on 2026-07-28)', async () => {
    s.answers.elicitation = (params) =>
      String(params.message).includes('confirm')
        ? { action: 'accept', content: { ok: true } }
        : { action: 'accept', content: { name: 'Alice' } };
    expect((await s.callTool('test_input_required_result_elicitation')).content).toEqual([{ type: 'text', text: 'Hello, Alice!' }]);
    expect((await s.callTool('test_input_required_result_request_state')).content).toEqual([
      { type: 'text', text: 'state-ok: confirmed=true' },
    ]);
    s.answers.elicitation = (params) => ({
      action: 'accept',
      content: String(params.message).startsWith('Step 1') ? { name: 'Ada' } : { color: 'blue' },
    });
    expect((await s.callTool('test_input_required_result_multi_round')).content).toEqual([{ type: 'text', text: 'Ada likes blue' }]);
  });

  it('test_reconnection: finishes with the scenario text (on 2025-11-25 after the client resumed with Last-Event-ID)', async () => {
    const before = s.http.length;
    const result = await s.callTool('test_reconnection');
    expect(result.content).toEqual([
      {
        type: 'text',
        text: 'Reconnection test completed successfully. If you received this, the client properly reconnected after stream closure.',
      },
    ]);
    const resumed = s.http.slice(before).filter((r) => r.method === 'GET' && r.headers['last-event-id']);
    // 2026-07-28 requests are stateless: no event store, nothing to resume, the result arrives on the POST.
    expect(resumed.length).toBe(s.modern ? 0 : 1);
  });

  it('test_long_running: one progress per step, then the result', async () => {
    const seen: number[] = [];
    const result = await s.callTool('test_long_running', { durationMs: 150, steps: 3 }, { onprogress: (p) => seen.push(p.progress) });
    expect(result.content).toEqual([{ type: 'text', text: 'Long-running operation completed: 3 steps in 150 ms' }]);
    expect(seen).toEqual([0, 1, 2]);
  });

  it('test_long_running: stops at once when cancelled, and the session keeps serving', async () => {
    const abort = new AbortController();
    let progress = 0;
    const call = s.callTool(
      'test_long_running',
      { durationMs: 5000, steps: 50 },
      {
        signal: abort.signal,
        onprogress: () => {
          progress++;
          abort.abort();
        },
      },
    );
    await expect(call).rejects.toThrow();
    const atAbort = progress;
    await sleep(400); // four steps' worth: a server still running would have reported progress
    expect(progress).toBe(atAbort);
    await s.ping();
    expect((await s.callTool('test_simple_text')).isError).toBeFalsy();
  });

  it('resources: static text, static binary (PNG), template JSON, watched resource', async () => {
    expect(await s.readResource('test://static-text')).toMatchObject({
      contents: [{ uri: 'test://static-text', mimeType: 'text/plain', text: 'This is the content of the static text resource.' }],
    });
    const binary = await s.readResource('test://static-binary');
    expect(binary.contents).toEqual([{ uri: 'test://static-binary', mimeType: 'image/png', blob: expect.any(String) }]);
    expect(isPng1x1(binary.contents[0]?.blob as string)).toBe(true);
    expect((await s.readResource('test://template/123/data')).contents).toEqual([
      { uri: 'test://template/123/data', mimeType: 'application/json', text: '{"id":"123","templateTest":true,"data":"Data for ID: 123"}' },
    ]);
    expect((await s.readResource('test://watched-resource')).contents).toEqual([
      { uri: 'test://watched-resource', mimeType: 'text/plain', text: expect.stringMatching(/^Watched resource content, version \d+ /) },
    ]);
  });

  it('prompts: the scenario messages', async () => {
    expect((await s.getPrompt('test_simple_prompt')).messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } },
    ]);
    expect((await s.getPrompt('test_prompt_with_arguments', { arg1: 'hello', arg2: 'world' })).messages).toEqual([
      { role: 'user', content: { type: 'text', text: "Prompt with arguments: arg1='hello', arg2='world'" } },
    ]);
    expect((await s.getPrompt('test_prompt_with_embedded_resource', { resourceUri: 'test://example-resource' })).messages).toEqual([
      {
        role: 'user',
        content: {
          type: 'resource',
          resource: { uri: 'test://example-resource', mimeType: 'text/plain', text: 'Embedded resource content for testing.' },
        },
      },
      { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } },
    ]);
    const image = (await s.getPrompt('test_prompt_with_image')).messages;
    expect(image).toEqual([
      { role: 'user', content: { type: 'image', mimeType: 'image/png', data: expect.any(String) } },
      { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
    ]);
    expect(isPng1x1(image[0]?.content.data)).toBe(true);
  });

  it('completion/complete for test_prompt_with_arguments.arg1', async () => {
    expect((await s.complete('test_prompt_with_arguments', 'arg1', 'pa')).values).toEqual(['paris', 'park', 'party']);
    expect((await s.complete('test_prompt_with_arguments', 'arg1', 'zz')).values).toEqual([]);
  });

  // 2026-07-28 replaced them with subscriptions/listen.
  if (!modern) {
    it('resources/subscribe and unsubscribe answer {}', async () => {
      expect(await s.subscribe('test://watched-resource')).toEqual({});
      expect(await s.unsubscribe('test://watched-resource')).toEqual({});
    });
  }
});
