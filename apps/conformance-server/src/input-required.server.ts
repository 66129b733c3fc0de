import { Context, type ElicitationSchema, McpServer, Prompt, Tool } from '@armature/core';

/** A form asking for one required string field. */
function askFor(field: string): ElicitationSchema {
  return { type: 'object', properties: { [field]: { type: 'string' } }, required: [field] } as ElicitationSchema;
}

const CONFIRM: ElicitationSchema = {
  type: 'object',
  properties: { ok: { type: 'boolean' } },
  required: ['ok'],
} as ElicitationSchema;

/** What an accepted elicitation answered in `field`, or the action taken. */
function answerIn(outcome: { action: string; content?: Record<string, unknown> }, field: string): string {
  return outcome.action === 'accept' ? String(outcome.content?.[field]) : `(${outcome.action})`;
}

/**
 * The multi-round-trip fixtures of the suite (SEP-2322, 2026-07-28): each asks the client through
 * `ctx.elicit`, `ctx.sample` and `ctx.roots`, naming its questions as the scenarios expect
 * (`{ key }`); Armature ends the round with `input_required` and a signed `requestState`, and runs
 * the method again with the answers. On 2025-11-25 the same code sends server-to-client requests.
 */
@McpServer({ name: 'armature-conformance-server', version: '0.1.0' })
export class InputRequiredTools {
  @Tool({
    name: 'test_input_required_result_elicitation',
    description: 'Asks the user for their name (key "user_name"), then greets them.',
  })
  async elicitation(ctx: Context) {
    const outcome = await ctx.elicit('What is your name?', askFor('name'), { key: 'user_name' });
    return `Hello, ${answerIn(outcome, 'name')}!`;
  }

  @Tool({
    name: 'test_input_required_result_sampling',
    description: 'Asks the client model for the capital of France (key "capital_question").',
  })
  async sampling(ctx: Context) {
    const reply = await ctx.sample('What is the capital of France?', { maxTokens: 100, key: 'capital_question' });
    return `The model answered: ${reply.content.type === 'text' ? reply.content.text : `[${reply.content.type}]`}`;
  }

  @Tool({ name: 'test_input_required_result_list_roots', description: 'Asks for the client\'s roots (key "client_roots") and lists them.' })
  async listRoots(ctx: Context) {
    const roots = await ctx.roots({ key: 'client_roots' });
    return `Client roots: ${roots.map((root) => root.uri).join(', ') || '(none)'}`;
  }

  @Tool({
    name: 'test_input_required_result_request_state',
    description: 'Asks for a confirmation; the answer comes back with the signed requestState, checked before the method runs again.',
  })
  async requestState(ctx: Context) {
    const outcome = await ctx.elicit('Please confirm', CONFIRM, { key: 'confirm' });
    // Reached only with the answer of the round that asked, under a requestState Armature verified.
    return `state-ok: confirmed=${answerIn(outcome, 'ok')}`;
  }

  @Tool({
    name: 'test_input_required_result_multiple_inputs',
    description: 'Asks for a name, a model greeting and the roots at once: one round with three inputRequests.',
  })
  async multipleInputs(ctx: Context) {
    // Asked together, so they reach the client in one round.
    const [name, greeting, roots] = await Promise.all([
      ctx.elicit('What is your name?', askFor('name'), { key: 'user_name' }),
      ctx.sample('Generate a greeting', { maxTokens: 50, key: 'greeting' }),
      ctx.roots({ key: 'client_roots' }),
    ]);
    const text = greeting.content.type === 'text' ? greeting.content.text : `[${greeting.content.type}]`;
    return `name=${answerIn(name, 'name')}, greeting=${text}, roots=${roots.length}`;
  }

  @Tool({ name: 'test_input_required_result_multi_round', description: 'Asks two questions one after the other: two rounds.' })
  async multiRound(ctx: Context) {
    const name = await ctx.elicit('Step 1: What is your name?', askFor('name'), { key: 'step1' });
    const color = await ctx.elicit('Step 2: What is your favorite color?', askFor('color'), { key: 'step2' });
    return `${answerIn(name, 'name')} likes ${answerIn(color, 'color')}`;
  }

  @Tool({
    name: 'test_input_required_result_tampered_state',
    description: 'Asks for a confirmation under a signed requestState: a tampered state is refused (-32602).',
  })
  async tamperedState(ctx: Context) {
    const outcome = await ctx.elicit('Please confirm', CONFIRM, { key: 'confirm' });
    return `confirmed=${answerIn(outcome, 'ok')}`;
  }

  @Tool({
    name: 'test_input_required_result_capabilities',
    description: 'Asks only what the client declared it can answer: sampling when declared, form elicitation when declared.',
  })
  async capabilities(ctx: Context) {
    const declared = ctx.clientCapabilities ?? {};
    const answers: string[] = [];
    if (declared.sampling) {
      const reply = await ctx.sample('Say hello', { maxTokens: 20, key: 'sampling_question' });
      answers.push(`model: ${reply.content.type === 'text' ? reply.content.text : `[${reply.content.type}]`}`);
    }
    if (declared.elicitation) {
      const outcome = await ctx.elicit('What is your name?', askFor('name'), { key: 'user_name' });
      answers.push(`name: ${answerIn(outcome, 'name')}`);
    }
    return answers.length > 0 ? answers.join('; ') : 'The client declared neither sampling nor elicitation: nothing asked.';
  }

  @Prompt({
    name: 'test_input_required_result_prompt',
    description: 'A prompt that asks the user for its context (key "user_context") before it is rendered.',
  })
  async prompt(ctx: Context) {
    const outcome = await ctx.elicit('What context should the prompt use?', askFor('context'), { key: 'user_context' });
    return `Answer with this context in mind: ${answerIn(outcome, 'context')}`;
  }
}
