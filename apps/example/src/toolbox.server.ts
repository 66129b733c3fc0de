import { setTimeout as sleep } from 'node:timers/promises';
import { Context, image, McpServer, Tool, text } from '@armature/core';
import { solidPng } from './png.js';
import { AddInput, CountDownInput, SwatchInput } from './toolbox.dto.js';

/** Plain JSON the `count_words` schema lets through (Ajv has applied the defaults). */
interface CountWordsArgs {
  text: string;
  top: number;
}

/**
 * General-purpose tools: the common shapes of a tool, one each. DTO parameters are imported as
 * values (not `import type`): their class is what the schema and the validation are built from.
 */
@McpServer({
  name: 'armature-example',
  version: '0.1.0',
  title: 'Armature example',
  instructions:
    'Toolbox: add numbers, count down with progress, render colour swatches, count words. Shop: prices and quotes for a tea shop.',
})
export class ToolboxServer {
  @Tool({ description: 'Adds two numbers and returns the sum.', annotations: { readOnlyHint: true } })
  add(input: AddInput): number {
    return input.a + input.b;
  }

  @Tool({
    name: 'count_down',
    title: 'Count down',
    description:
      'Counts down `steps` steps, one every `delayMs` milliseconds, reporting progress on the way. ' +
      'A long-running task in miniature: cancel it at any time and it stops at once.',
    annotations: { readOnlyHint: true },
  })
  async countDown(input: CountDownInput, ctx: Context): Promise<string> {
    await ctx.log.info(`count_down: ${input.steps} steps of ${input.delayMs} ms`);
    for (let done = 0; done < input.steps; done++) {
      await ctx.progress(done, input.steps, `${input.steps - done} to go`);
      // The timer rejects the moment the client cancels, so no further step runs.
      await sleep(input.delayMs, undefined, { signal: ctx.signal });
    }
    // No closing "100%" progress: the result says it. A progress notification written just before
    // the response can reach the SDK clients after it, and they report an "unknown token" error
    // (modelcontextprotocol/typescript-sdk#2580; some clients drop the connection on it).
    return `Lift-off after ${input.steps} steps`;
  }

  @Tool({
    name: 'render_swatch',
    description: 'Renders a square PNG swatch of one colour, to preview it.',
    annotations: { readOnlyHint: true },
  })
  renderSwatch(input: SwatchInput) {
    const hex = Number.parseInt(input.color.slice(1), 16);
    const png = solidPng(input.size, input.size, [(hex >> 16) & 0xff, (hex >> 8) & 0xff, hex & 0xff]);
    return [text(`A ${input.size}x${input.size} swatch of ${input.color.toLowerCase()}`), image(png, 'image/png')];
  }

  // The escape hatch: a hand-written JSON Schema instead of a DTO. The method receives the plain
  // JSON after Armature has checked it against the schema.
  @Tool({
    name: 'count_words',
    description: 'Counts the words of a text and lists the most frequent ones (case-insensitive).',
    annotations: { readOnlyHint: true },
    inputSchema: {
      type: 'object',
      properties: {
        text: { type: 'string', minLength: 1, description: 'The text to count' },
        top: { type: 'integer', minimum: 1, maximum: 20, default: 3, description: 'How many of the most frequent words to list' },
      },
      required: ['text'],
      additionalProperties: false,
    },
  })
  countWords(input: CountWordsArgs) {
    const words = input.text.toLowerCase().match(/[\p{L}\p{N}']+/gu) ?? [];
    const counts = new Map<string, number>();
    for (const word of words) counts.set(word, (counts.get(word) ?? 0) + 1);
    const top = [...counts]
      .sort(([a, m], [b, n]) => n - m || a.localeCompare(b))
      .slice(0, input.top)
      .map(([word, count]) => ({ word, count }));
    return { words: words.length, distinct: counts.size, top };
  }
}
