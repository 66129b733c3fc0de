import { IsInt, IsString, MinLength } from 'class-validator';
import { Tool, ToolError } from '../../src/index.js';

// The tools both byte-equality tests of the request engines serve (stdio and 2025-11-25 in
// request-engine-stdio.test.ts, HTTP 2026-07-28 in request-engine-modern.test.ts): every kind of answer the
// conversion table makes, so each path is held to the SDK path's bytes on all of them. Each test's
// server extends this class with the tools of its own transport.

export class Pair {
  @IsInt()
  a!: number;

  @IsInt()
  b!: number;
}

export class Query {
  @IsString()
  @MinLength(3)
  query!: string;
}

export class Report {
  constructor(
    readonly total: number,
    readonly items: string[],
  ) {}
}

export class EngineTools {
  @Tool({ description: 'adds' })
  add(input: Pair) {
    return input.a + input.b;
  }

  @Tool({ description: 'a structured answer' })
  search(input: Query) {
    return new Report(2, [input.query, `${input.query}!`]);
  }

  @Tool({ description: 'a block returned as is, with annotations' })
  annotated() {
    return { type: 'text', text: 'hi', annotations: { audience: ['user'], priority: 0.5 } };
  }

  @Tool({ description: 'a whole result with _meta' })
  whole() {
    return { content: [{ type: 'text', text: 'x' }], _meta: { 'example.com/trace': 'abc' }, isError: false };
  }

  @Tool({ description: 'a result the SDK schema refuses' })
  invalid() {
    return { content: [{ type: 'text', text: 'x', annotations: { priority: 'high' } }] };
  }

  @Tool({ description: 'an expected failure' })
  refuse() {
    throw new ToolError('No stock left', { sku: 'A1' });
  }

  @Tool({ description: 'an unexpected failure' })
  crash(): string {
    throw new Error('disk on fire');
  }
}
