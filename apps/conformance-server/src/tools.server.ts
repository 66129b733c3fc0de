import { setTimeout as sleep } from 'node:timers/promises';
import { audio, Context, embeddedResource, image, McpServer, sdkContextOf, Tool, ToolError, text } from '@armature/core';
import { RED_PIXEL_PNG, silentWav } from './fixtures.js';
import { HeaderParamsInput, LongRunningInput } from './tools.dto.js';

/**
 * Input schema of `json_schema_2020_12_tool`, advertised as written: SEP-1613 checks that `$schema`,
 * `$defs` and `additionalProperties` survive, SEP-2106 that `$anchor`, `allOf`/`anyOf` and
 * `if`/`then`/`else` do. It asks for a phone number or an email address, the one the contact
 * method names.
 */
export const JSON_SCHEMA_2020_12_INPUT = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  $defs: {
    address: {
      $anchor: 'addressDef',
      type: 'object',
      properties: {
        street: { type: 'string' },
        city: { type: 'string' },
      },
    },
  },
  properties: {
    name: { type: 'string' },
    address: { $ref: '#/$defs/address' },
    contactMethod: { type: 'string', enum: ['phone', 'email'] },
    phone: { type: 'string' },
    email: { type: 'string' },
  },
  allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
  if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
  // biome-ignore lint/suspicious/noThenProperty: the JSON Schema keyword (if/then/else); this object is never awaited
  then: { required: ['phone'] },
  else: { required: ['email'] },
  additionalProperties: false,
};

/**
 * The tools of the official conformance suite (`@modelcontextprotocol/conformance` 0.1.16), named
 * and answering as its scenarios describe, plus `test_long_running` for cancellation checks.
 * Tools that ask the client for something (sampling, elicitation) live in client-features.server.ts.
 */
@McpServer({
  name: 'armature-conformance-server',
  version: '0.1.0',
  title: 'Armature conformance server',
  instructions: 'Test fixtures for the MCP conformance suite: every tool, resource and prompt its scenarios expect.',
})
export class ConformanceTools {
  @Tool({ name: 'test_simple_text', description: 'Returns one fixed text content block.' })
  simpleText() {
    return 'This is a simple text response for testing.';
  }

  @Tool({ name: 'test_image_content', description: 'Returns one image content block (a 1x1 PNG).' })
  imageContent() {
    return image(RED_PIXEL_PNG, 'image/png');
  }

  @Tool({ name: 'test_audio_content', description: 'Returns one audio content block (a short silent WAV).' })
  audioContent() {
    return audio(silentWav(), 'audio/wav');
  }

  @Tool({ name: 'test_embedded_resource', description: 'Returns one embedded text resource.' })
  embeddedResource() {
    return embeddedResource('test://embedded-resource', 'This is an embedded resource content.', { mimeType: 'text/plain' });
  }

  @Tool({ name: 'test_multiple_content_types', description: 'Returns text, an image and an embedded JSON resource together.' })
  multipleContentTypes() {
    return [
      text('Multiple content types test:'),
      image(RED_PIXEL_PNG, 'image/png'),
      embeddedResource('test://mixed-content-resource', JSON.stringify({ test: 'data', value: 123 }), { mimeType: 'application/json' }),
    ];
  }

  @Tool({ name: 'test_tool_with_logging', description: 'Sends three info log notifications, 50 ms apart, while it runs.' })
  async withLogging(ctx: Context) {
    await ctx.log.info('Tool execution started');
    await sleep(50, undefined, { signal: ctx.signal });
    await ctx.log.info('Tool processing data');
    await sleep(50, undefined, { signal: ctx.signal });
    await ctx.log.info('Tool execution completed');
    return 'Tool with logging executed successfully';
  }

  @Tool({ name: 'test_error_handling', description: 'Always fails: returns a tool result with isError: true.' })
  errorHandling(): never {
    throw new ToolError('This tool intentionally returns an error for testing');
  }

  @Tool({
    name: 'test_tool_with_progress',
    description: 'Reports progress 0/100, 50/100 and 100/100, 50 ms apart, when the request carries a progress token.',
  })
  async withProgress(ctx: Context) {
    for (const progress of [0, 50, 100]) {
      await ctx.progress(progress, 100, `Completed step ${progress} of 100`);
      // Also after the last one: a notification written right before the response can reach the SDK
      // clients after it, and they drop it (modelcontextprotocol/typescript-sdk#2580).
      await sleep(50, undefined, { signal: ctx.signal });
    }
    return 'Tool with progress executed successfully';
  }

  @Tool({
    name: 'json_schema_2020_12_tool',
    description:
      'Tool with JSON Schema 2020-12 features ($schema, $defs with $anchor, allOf/anyOf, if/then/else, additionalProperties) for conformance testing (SEP-1613, SEP-2106).',
    inputSchema: JSON_SCHEMA_2020_12_INPUT,
  })
  jsonSchema202012(input: {
    name?: string;
    address?: { street?: string; city?: string };
    contactMethod?: 'phone' | 'email';
    phone?: string;
    email?: string;
  }) {
    return `JSON Schema 2020-12 tool called with: ${JSON.stringify(input)}`;
  }

  @Tool({
    name: 'test_reconnection',
    description:
      'Closes the SSE stream of its own POST mid-call and then finishes (SEP-1699): the client resumes with Last-Event-ID ' +
      'and receives the result from the event store. Needs a 2025-11-25 HTTP session with resumable streams.',
  })
  async reconnection(ctx: Context) {
    // Let the priming event (id + retry) reach the client first, so that it has an id to resume from.
    await sleep(100, undefined, { signal: ctx.signal });
    sdkContextOf(ctx)?.http?.closeSSE?.();
    await sleep(200, undefined, { signal: ctx.signal });
    return 'Reconnection test completed successfully. If you received this, the client properly reconnected after stream closure.';
  }

  @Tool({
    name: 'test_long_running',
    description:
      'Runs for `durationMs` in `steps` equal steps, reporting progress at the start of each step. Stops at once when the request is cancelled.',
    annotations: { readOnlyHint: true },
  })
  async longRunning(input: LongRunningInput, ctx: Context) {
    const stepMs = input.durationMs / input.steps;
    for (let done = 0; done < input.steps; done++) {
      await ctx.progress(done, input.steps, `step ${done + 1} of ${input.steps}`);
      // Rejects the moment the client cancels: no further step, no further progress.
      await sleep(stepMs, undefined, { signal: ctx.signal });
    }
    // No closing progress right before the result: the SDK clients can see it after the response
    // and report an unknown progress token (modelcontextprotocol/typescript-sdk#2580).
    return `Long-running operation completed: ${input.steps} steps in ${input.durationMs} ms`;
  }

  @Tool({
    name: 'test_header_params',
    description:
      'Echoes its arguments; `region` is mirrored in the Mcp-Param-Region header (x-mcp-header, SEP-2243), so a 2026-07-28 ' +
      'HTTP call whose header disagrees with the body is refused with 400 and -32020 before the tool runs.',
    annotations: { readOnlyHint: true },
  })
  headerParams(input: HeaderParamsInput) {
    return `Looked up "${input.query}" in region "${input.region}"`;
  }

  @Tool({ name: 'test_dynamic_tool', description: 'Registered disabled; enabled 2 s after start (tools/list_changed).' })
  dynamicTool() {
    return 'This is a dynamically enabled tool.';
  }
}
