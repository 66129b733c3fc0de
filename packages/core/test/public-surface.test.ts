import { readFileSync } from 'node:fs';
import { describe, expect, expectTypeOf, it } from 'vitest';
import * as core from '../src/index.js';

// The package's public surface is declared in one file (src/index.ts); this pins its runtime
// exports so that adding or removing one is a deliberate change, visible in review.
describe('@armature/core public surface', () => {
  it('exports exactly these values', () => {
    expect(Object.keys(core).sort()).toEqual(
      [
        'AppResource',
        'ArmatureBuildError',
        'ArmatureMetricProducer',
        'BearerAuth',
        'Complete',
        'Context',
        'DEFAULT_ARGUMENT_LIMITS',
        'DEFAULT_EVENT_STORE_LIMITS',
        'DEFAULT_MESSAGE_LIMITS',
        'DEFAULT_TASK_LIMITS',
        'Field',
        'InMemoryEventStore',
        'InMemoryTaskStore',
        'InvalidTokenError',
        'JwtVerifier',
        'McpApp',
        'McpError',
        'McpServer',
        'MemoryRateLimitStore',
        'MetadataStorage',
        'MountedPart',
        'PROTECTED_RESOURCE_METADATA_PATH',
        'Principal',
        'Prompt',
        'RATE_LIMITED',
        'RateLimit',
        'Registrations',
        'RemoteServerRef',
        'RequestScoped',
        'RequireScopes',
        'Resource',
        'ResourceTemplate',
        'SEP_3304_RATE_LIMITED',
        'SKILLS_EXTENSION',
        'Skills',
        'TaskWatchers',
        'Tool',
        'ToolError',
        'TypediContainerAdapter',
        'UseGuards',
        'UseInterceptors',
        'audio',
        'buildAppDefinition',
        'createMcpApp',
        'defineExtension',
        'dtoToJsonSchema',
        'embeddedResource',
        'errorCodes',
        'formatIssue',
        'formatIssues',
        'explainStartupError',
        'formatProblems',
        'getMetadataStorage',
        'image',
        'memoryState',
        'mount',
        'remoteServer',
        'resourceLink',
        'sdkContextOf',
        'skills',
        'serveOnWorkers',
        'serverCardOf',
        'text',
        'toCallToolResult',
        'validateDto',
      ].sort(),
    );
  });

  it('tells every handler its run: Context.attempt and Context.idempotencyKey (task retries)', () => {
    expectTypeOf<core.Context['attempt']>().toEqualTypeOf<number>();
    expectTypeOf<core.Context['idempotencyKey']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<core.ToolTaskOptions>().toEqualTypeOf<{ support: core.TaskSupportOption; retries?: number; start?: core.TaskStart }>();
  });

  it('lets a tool call go on as a task: Context.continueAsTask() and task.start', () => {
    expectTypeOf<core.Context['continueAsTask']>().toEqualTypeOf<() => Promise<void>>();
    expectTypeOf<core.TaskStart>().toEqualTypeOf<'call' | 'continueAsTask'>();
  });

  it('lets an extension serve a method on one revision and answer by each revision (ExtensionMethod.revisions, ExtensionContext.revision)', () => {
    expectTypeOf<core.ProtocolRevision>().toEqualTypeOf<'2025-11-25' | '2026-07-28'>();
    expectTypeOf<core.ExtensionMethod['revisions']>().toEqualTypeOf<readonly core.ProtocolRevision[] | undefined>();
    expectTypeOf<core.ExtensionContext['revision']>().toEqualTypeOf<core.ProtocolRevision>();
    expectTypeOf<core.ExtensionContext['connectionId']>().toEqualTypeOf<string>();
    expectTypeOf<core.ExtensionContext['inputResponses']>().toEqualTypeOf<Readonly<Record<string, unknown>> | undefined>();
  });

  it('lets an extension answer a tools/call in the tool’s place (ExtensionOptions.onToolCall)', () => {
    expectTypeOf<core.ExtensionOptions['onToolCall']>().toEqualTypeOf<
      ((call: core.ExtensionToolCall, ctx: core.ExtensionContext) => unknown) | undefined
    >();
    expectTypeOf<core.ExtensionToolCall['allowed']>().toEqualTypeOf<() => Promise<boolean>>();
    expectTypeOf<core.ExtensionToolCall['refuse']>().toEqualTypeOf<() => Promise<never>>();
    expectTypeOf<core.ExtensionToolCall['count']>().toEqualTypeOf<() => Promise<void>>();
  });

  it("offers the app's event hub as McpApp.onEvent (the only way in: runtime.events stays internal)", () => {
    expect(typeof core.McpApp.prototype.onEvent).toBe('function');
  });

  it('is exported the same by the built package (dist/index.js, one bundled module)', async () => {
    const built = (await import(new URL('../dist/index.js', import.meta.url).href)) as Record<string, unknown>;
    expect(Object.keys(built).sort()).toEqual(Object.keys(core).sort());
    for (const [name, value] of Object.entries(core)) expect(typeof built[name], name).toBe(typeof value);
  });

  it('is built as ASCII without JSDoc (less for Node to read and V8 to scan at each start)', () => {
    const code = readFileSync(new URL('../dist/index.js', import.meta.url), 'utf8');
    expect(code).not.toMatch(/[^\t\n\r\x20-\x7e]/);
    expect(code).not.toMatch(/^\s*\/\*\*\s/m);
  });
});
