import { Context, type ElicitationSchema, type McpApp, McpServer, type Registrations, Tool } from '@armature/core';

const NAME_FORM = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } as ElicitationSchema;

/**
 * The diagnostic tools of the suite's `server-stateless` scenario (SEP-2575, 2026-07-28): a tool
 * that needs a client capability, one that asks the user while its response streams, and one that
 * logs (silent unless the request's `_meta` sets a log level).
 */
@McpServer({ name: 'armature-conformance-server', version: '0.1.0' })
export class DiagnosticTools {
  @Tool({
    name: 'test_missing_capability',
    description: 'Needs sampling: a client that did not declare it gets -32021 naming { sampling: {} } (HTTP 400 on 2026-07-28).',
  })
  async missingCapability(ctx: Context) {
    const reply = await ctx.sample('Say hello', { maxTokens: 20 });
    return `The model answered: ${reply.content.type === 'text' ? reply.content.text : `[${reply.content.type}]`}`;
  }

  @Tool({
    name: 'test_streaming_elicitation',
    description:
      'Reports progress, then asks the user for a name: on 2026-07-28 the question comes back as input_required, never as a request.',
  })
  async streamingElicitation(ctx: Context) {
    await ctx.progress(0, 1, 'about to ask');
    const outcome = await ctx.elicit('What is your name?', NAME_FORM);
    return outcome.action === 'accept' ? `Hello, ${String(outcome.content.name)}!` : `No name (${outcome.action}).`;
  }

  @Tool({
    name: 'test_logging_tool',
    description: 'Logs three info lines while it runs (sent only when the client asked for a log level).',
  })
  async logging(ctx: Context) {
    await ctx.log.info('Logging tool started');
    await ctx.log.info('Logging tool working');
    await ctx.log.info('Logging tool finished');
    return 'Logging tool done';
  }
}

/**
 * The suite's hooks for list-changed notifications on `subscriptions/listen` streams: each turns
 * the dynamic tool (or prompt) on when it is off and off when it is on, so the list changes (one
 * notification, also through a gateway that lists again to see what changed). `app` is the app
 * serving these tools.
 */
export function listChangeTools(app: () => McpApp, names: { tool: string; prompt: string }) {
  const flip = (registrations: Registrations, name: string) => {
    if (registrations.isEnabled(name)) registrations.disable(name);
    else registrations.enable(name);
    return registrations.isEnabled(name) ? 'on' : 'off';
  };

  @McpServer({ name: 'armature-conformance-server', version: '0.1.0' })
  class ListChangeTools {
    @Tool({ name: 'test_trigger_tool_change', description: 'Turns the dynamic tool on or off (tools/list_changed).' })
    triggerToolChange() {
      return `${names.tool} is ${flip(app().tools, names.tool)}`;
    }

    @Tool({ name: 'test_trigger_prompt_change', description: 'Turns the dynamic prompt on or off (prompts/list_changed).' })
    triggerPromptChange() {
      return `${names.prompt} is ${flip(app().prompts, names.prompt)}`;
    }
  }
  return ListChangeTools;
}
