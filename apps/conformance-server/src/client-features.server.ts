import { Context, type ElicitationSchema, type ElicitOutcome, McpServer, Tool } from '@armature/core';
import { ElicitationInput, SamplingInput, UserInfo } from './client-features.dto.js';

/** SEP-1034: a default for every primitive type. */
export const SEP1034_SCHEMA = {
  type: 'object',
  properties: {
    name: { type: 'string', description: 'User name', default: 'John Doe' },
    age: { type: 'integer', description: 'User age', default: 30 },
    score: { type: 'number', description: 'User score', default: 95.5 },
    status: { type: 'string', description: 'User status', enum: ['active', 'inactive', 'pending'], default: 'active' },
    verified: { type: 'boolean', description: 'Verification status', default: true },
  },
  required: [],
} as ElicitationSchema;

/** SEP-1330: the five enum variants of a form. */
export const SEP1330_SCHEMA = {
  type: 'object',
  properties: {
    untitledSingle: { type: 'string', description: 'Select one option', enum: ['option1', 'option2', 'option3'] },
    titledSingle: {
      type: 'string',
      description: 'Select one option with titles',
      oneOf: [
        { const: 'value1', title: 'First Option' },
        { const: 'value2', title: 'Second Option' },
        { const: 'value3', title: 'Third Option' },
      ],
    },
    legacyEnum: {
      type: 'string',
      description: 'Select one option (legacy)',
      enum: ['opt1', 'opt2', 'opt3'],
      enumNames: ['Option One', 'Option Two', 'Option Three'],
    },
    untitledMulti: {
      type: 'array',
      description: 'Select multiple options',
      minItems: 1,
      maxItems: 3,
      items: { type: 'string', enum: ['option1', 'option2', 'option3'] },
    },
    titledMulti: {
      type: 'array',
      description: 'Select multiple options with titles',
      minItems: 1,
      maxItems: 3,
      items: {
        anyOf: [
          { const: 'value1', title: 'First Choice' },
          { const: 'value2', title: 'Second Choice' },
          { const: 'value3', title: 'Third Choice' },
        ],
      },
    },
  },
  required: [],
} as ElicitationSchema;

function describeOutcome(outcome: ElicitOutcome<object>): string {
  return `action=${outcome.action}, content=${JSON.stringify(outcome.action === 'accept' ? outcome.content : {})}`;
}

/**
 * The conformance tools that ask the client for something: sampling and form elicitation, through
 * `ctx.sample` and `ctx.elicit` (server-to-client requests on 2025-11-25, `input_required` rounds on
 * 2026-07-28). A client without the capability gets a tool error naming it.
 */
@McpServer({ name: 'armature-conformance-server', version: '0.1.0' })
export class ClientFeatureTools {
  @Tool({ name: 'test_sampling', description: 'Asks the client to sample an LLM with the prompt (maxTokens 100) and returns its answer.' })
  async sampling(input: SamplingInput, ctx: Context) {
    const result = await ctx.sample(input.prompt, { maxTokens: 100 });
    const blocks = Array.isArray(result.content) ? result.content : [result.content];
    const answer = blocks.map((block) => (block.type === 'text' ? block.text : `[${block.type}]`)).join('\n');
    return `LLM response: ${answer}`;
  }

  @Tool({ name: 'test_elicitation', description: 'Asks the user (form elicitation) for a username and an email address.' })
  async elicitation(input: ElicitationInput, ctx: Context) {
    const outcome = await ctx.elicit(input.message, UserInfo);
    return `User response: ${describeOutcome(outcome)}`;
  }

  @Tool({
    name: 'test_elicitation_sep1034_defaults',
    description: 'Form elicitation whose fields carry defaults of every primitive type (SEP-1034).',
  })
  async elicitationDefaults(ctx: Context) {
    const outcome = await ctx.elicit('Please review and update the form fields with defaults', SEP1034_SCHEMA);
    return `Elicitation completed: ${describeOutcome(outcome)}`;
  }

  @Tool({
    name: 'test_elicitation_sep1330_enums',
    description:
      'Form elicitation with the five enum variants: untitled/titled single, legacy enumNames, untitled/titled multi (SEP-1330).',
  })
  async elicitationEnums(ctx: Context) {
    const outcome = await ctx.elicit('Please select options from the enum fields', SEP1330_SCHEMA);
    return `Elicitation completed: ${describeOutcome(outcome)}`;
  }
}
