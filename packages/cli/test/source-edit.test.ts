import { describe, expect, it } from 'vitest';
import {
  addClassMember,
  addToExportedArray,
  classHasMember,
  ensureNamedImports,
  findClassBody,
  matchingBracket,
  SourceEditError,
} from '../src/util/source-edit.js';
import { tsLiteral } from '../src/util/ts-literal.js';

const SERVER = `import { McpServer, Tool } from '@armature/core';
import { Thing } from './thing.js';

// a comment with a } brace
@McpServer({ name: 'x', version: '1' })
export class WeatherServer {
  private readonly braces = '}{';
  private readonly template = \`\${'}'} and \${\`nested \${'{'}\`}\`;

  @Tool({ description: 'a /* } */ tool' })
  async ping(): Promise<string> {
    /* } */
    return "}";
  }
}

export class After {}
`;

describe('findClassBody / matchingBracket', () => {
  it('skips brackets inside strings, templates (nested) and comments', () => {
    const body = findClassBody(SERVER, 'WeatherServer');
    expect(body).toBeDefined();
    expect(SERVER.slice(body?.close ?? 0)).toMatch(/^}\n\nexport class After/);
    expect(findClassBody(SERVER, 'Missing')).toBeUndefined();
  });

  it('says where the brackets do not balance', () => {
    expect(() => matchingBracket('{ ( }', 0)).toThrow(SourceEditError);
    expect(() => matchingBracket('{ ', 0)).toThrow('no bracket closes the one at offset 0');
  });
});

describe('addClassMember', () => {
  it('adds the member last, after a blank line, indented', () => {
    const out = addClassMember(SERVER, 'WeatherServer', 'pong(): string {\n  return "pong";\n}');
    expect(out).toContain('    return "}";\n  }\n\n  pong(): string {\n    return "pong";\n  }\n}\n\nexport class After {}');
  });

  it('fills an empty class', () => {
    expect(addClassMember('export class A {}\n', 'A', 'x = 1;')).toBe('export class A {\n  x = 1;\n}\n');
  });

  it('knows the members a class has', () => {
    expect(classHasMember(SERVER, 'WeatherServer', 'ping')).toBe(true);
    expect(classHasMember(SERVER, 'WeatherServer', 'braces')).toBe(true);
    expect(classHasMember(SERVER, 'WeatherServer', 'pong')).toBe(false);
  });
});

describe('ensureNamedImports', () => {
  it('merges into an existing import in Biome order, once', () => {
    const out = ensureNamedImports(SERVER, '@armature/core', ['Context', 'Tool']);
    expect(out.split('\n')[0]).toBe("import { Context, McpServer, Tool } from '@armature/core';");
    expect(ensureNamedImports(out, '@armature/core', ['Context'])).toBe(out);
  });

  it('adds a new import after the last one', () => {
    const out = ensureNamedImports(SERVER, './dto/x.input.js', ['XInput']);
    expect(out.split('\n').slice(0, 3)).toEqual([
      "import { McpServer, Tool } from '@armature/core';",
      "import { Thing } from './thing.js';",
      "import { XInput } from './dto/x.input.js';",
    ]);
    expect(ensureNamedImports('const a = 1;\n', 'x', ['B'])).toBe("import { B } from 'x';\n\nconst a = 1;\n");
  });

  it('leaves `import type` lines alone', () => {
    const source = "import type { A } from 'm';\n";
    expect(ensureNamedImports(source, 'm', ['B'])).toBe("import type { A } from 'm';\nimport { B } from 'm';\n");
  });
});

describe('addToExportedArray', () => {
  it('appends once', () => {
    const source = 'export const servers = [A];\n';
    const out = addToExportedArray(source, 'servers', 'B');
    expect(out).toBe('export const servers = [A, B];\n');
    expect(addToExportedArray(out, 'servers', 'B')).toBe(out);
    expect(addToExportedArray('export const servers: Function[] = [];\n', 'servers', 'C')).toBe(
      'export const servers: Function[] = [C];\n',
    );
    expect(() => addToExportedArray('const x = [];', 'servers', 'B')).toThrow('`export const servers = [...]` was not found');
  });
});

describe('tsLiteral', () => {
  it('writes values in the generated style', () => {
    expect(tsLiteral({ a: "it's", 'b-c': [1, true, null], d: 'x'.repeat(20), e: {} })).toBe(
      "{ a: 'it\\'s', 'b-c': [1, true, null], d: 'x'.repeat(20), e: {} }",
    );
  });
});
