import { compareNames } from '../util/source-edit.js';
import { tsLiteral } from '../util/ts-literal.js';
import { type ArgumentCase, constraintsOf, type FieldSpec, tsTypeOf } from './field-spec.js';

/** `import { A, B } from 'x';` with the names in Biome's order. */
export function importLine(names: Iterable<string>, from: string): string {
  return `import { ${[...new Set(names)].sort(compareNames).join(', ')} } from '${from}';`;
}

/**
 * A DTO class: `@Field` with a description the model reads, then the class-validator decorators
 * that are both its JSON Schema and its validation. `nested` maps each nested DTO class to the
 * module it is imported from.
 */
export function renderDto(
  className: string,
  doc: string,
  fields: readonly FieldSpec[],
  nested: ReadonlyMap<string, string> = new Map(),
): string {
  const imports = new Map<string, Set<string>>([['@armature/core', new Set(['Field'])]]);
  const use = (name: string, from: string) => imports.set(from, (imports.get(from) ?? new Set()).add(name));
  const blocks = fields.map((field) => {
    const lines = [`@Field(${tsLiteral(field.description)})`];
    if (field.optional) {
      use('IsOptional', 'class-validator');
      lines.push('@IsOptional()');
    }
    for (const constraint of constraintsOf(field)) {
      use(constraint.decorator, constraint.from ?? 'class-validator');
      lines.push(constraint.code);
    }
    if (field.dto) {
      const from = nested.get(field.dto.className);
      if (!from) throw new Error(`renderDto: no module for ${field.dto.className}`);
      use(field.dto.className, from);
    }
    lines.push(`${field.name}${field.optional ? '?' : '!'}: ${tsTypeOf(field)};`);
    return lines.map((line) => `  ${line}`).join('\n');
  });
  // Biome's order: packages first (by name), then relative paths.
  const order = [...imports.keys()].sort((a, b) => Number(a.startsWith('.')) - Number(b.startsWith('.')) || (a < b ? -1 : a > b ? 1 : 0));
  return `${order.map((from) => importLine(imports.get(from) as Set<string>, from)).join('\n')}

/** ${doc} */
export class ${className} {
${blocks.join('\n\n')}
}
`;
}

/** Rows of an `it.each` table: `[what, args]` or `[what, args, lines]`. */
export function renderCaseRows(cases: readonly ArgumentCase[], withLines: boolean): string {
  return cases
    .map((c) => {
      const row = [tsLiteral(c.what), tsLiteral(c.args)];
      if (withLines) row.push(tsLiteral(c.lines));
      return `    [${row.join(', ')}],`;
    })
    .join('\n');
}

/**
 * The opening every generated pipeline test shares: the imports, a client of the real pipeline
 * built before the cases and closed after them. `preamble` stands between the imports and the
 * `describe` (a comment, a helper); the cases follow the returned text. In a plain project the
 * client is a `TestingApp` of the server class; in a Nest project (`nestHelper`, the import path of
 * `test/support/mcp-client.ts`) it is `connectMcp()`, the app built by Nest's injector.
 */
export function testingAppSuite(head: {
  /** What the cases use from `@armature/testing` besides the testing app, e.g. `textOf`. */
  testingNames: readonly string[];
  serverImport: string;
  serverClass: string;
  preamble: string;
  title: string;
  nestHelper?: string;
}): string {
  const imports = head.nestHelper
    ? [
        ...(head.testingNames.length > 0 ? [importLine(head.testingNames, '@armature/testing')] : []),
        "import { afterAll, beforeAll, describe, expect, it } from 'vitest';",
        `import { connectMcp, type McpTestClient } from '${head.nestHelper}';`,
      ]
    : [
        `import { ${['createTestingApp', 'type TestingApp', ...head.testingNames].join(', ')} } from '@armature/testing';`,
        "import { afterAll, beforeAll, describe, expect, it } from 'vitest';",
        head.serverImport,
      ];
  return `${imports.join('\n')}
${head.preamble}describe('${head.title}', () => {
  let t: ${head.nestHelper ? 'McpTestClient' : 'TestingApp'};

  beforeAll(async () => {
    t = await ${head.nestHelper ? 'connectMcp()' : `createTestingApp({ servers: [${head.serverClass}] }).compile()`};
  });

  // t is unset when the app failed to start in beforeAll: report that failure alone.
  afterAll(() => t?.close());
`;
}
