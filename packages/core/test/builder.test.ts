import { Type } from 'class-transformer';
import { IsInt, IsString, ValidateNested } from 'class-validator';
import { describe, expect, it } from 'vitest';
import { Context, createMcpApp, Field, getMetadataStorage, McpServer, Tool } from '../src/index.js';
import { buildError } from './support/build-error.js';

class NameInput {
  @IsString()
  name!: string;
}

describe('buildAppDefinition: problems are found at start-up, all at once', () => {
  it('rejects invalid tool names and says which name would do', () => {
    @McpServer({ name: 's', version: '1' })
    class BadNames {
      @Tool({ name: 'get forecast', description: 'd' })
      forecast() {}
      @Tool({ name: 'x'.repeat(129), description: 'd' })
      long() {}
      @Tool({ name: '', description: 'd' })
      empty() {}
    }
    const error = buildError(() => createMcpApp(BadNames));
    expect(error.problems.map((p) => p.where)).toEqual(['BadNames.forecast', 'BadNames.long', 'BadNames.empty']);
    expect(error.problems[0]).toEqual({
      code: 'ARM106',
      where: 'BadNames.forecast',
      message: 'the tool name "get forecast" is invalid: a name is 1-128 characters of A-Z a-z 0-9 _ . -',
      fix: "@Tool({ name: 'get_forecast', ... })",
    });
    expect(error.message).toContain('Armature cannot start the MCP server: 3 problems in the decorated classes.');
    expect(error.message).toContain(
      '  1. BadNames.forecast: the tool name "get forecast" is invalid: a name is 1-128 characters of A-Z a-z 0-9 _ . - [ARM106]',
    );
    expect(error.message).toContain("     Fix: @Tool({ name: 'get_forecast', ... })");
  });

  it('accepts names of exactly 1 and 128 allowed characters, with dots and dashes', () => {
    @McpServer({ name: 's', version: '1' })
    class GoodNames {
      @Tool({ name: 'a', description: 'd' })
      one() {}
      @Tool({ name: `${'x'.repeat(125)}.-_`, description: 'd' })
      long() {}
    }
    expect([...createMcpApp(GoodNames).definition.tools.keys()]).toEqual(['a', `${'x'.repeat(125)}.-_`]);
  });

  it('rejects a duplicate name, also across classes served together', () => {
    @McpServer({ name: 'a', version: '1' })
    class First {
      @Tool({ name: 'search', description: 'd' })
      find() {}
    }
    @McpServer({ name: 'b', version: '1' })
    class Second {
      @Tool({ description: 'd' })
      search() {}
    }
    const error = buildError(() => createMcpApp([First, Second]));
    expect(error.problems).toEqual([
      {
        code: 'ARM107',
        where: 'Second.search',
        message: 'the tool name "search" is already used by First.find',
        fix: "give one of them another name: @Tool({ name: 'search_2', ... })",
      },
    ]);
  });

  it('reports a DTO parameter whose type did not reflect (interface, type alias, import type)', () => {
    interface NotAClass {
      name: string;
    }
    @McpServer({ name: 's', version: '1' })
    class Unreflected {
      @Tool({ description: 'd' })
      greet(input: NotAClass) {
        return input.name;
      }
    }
    const [problem] = buildError(() => createMcpApp(Unreflected)).problems;
    expect(problem?.where).toBe('Unreflected.greet');
    expect(problem?.message).toBe(
      "the first parameter's type did not reflect (it is an interface, a type alias, or imported with `import type`)",
    );
    expect(problem?.fix).toContain('import it as a value (`import { MyDto }`, not `import type`), or @Tool({ input: () => MyDto, ... })');
  });

  it('reports a method compiled without decorator metadata (tsx/esbuild) and names the fix', () => {
    @McpServer({ name: 's', version: '1' })
    class NoMetadata {
      greet(input: NameInput) {
        return input.name;
      }
    }
    // What @Tool records when the compiler emitted no design:paramtypes (tsx, esbuild).
    getMetadataStorage().collectHandler({
      kind: 'tool',
      target: NoMetadata,
      methodName: 'greet',
      options: { description: 'd' },
      paramTypes: undefined,
      declaredParamCount: 1,
      isStatic: false,
    });
    const [problem] = buildError(() => createMcpApp(NoMetadata)).problems;
    expect(problem?.where).toBe('NoMetadata.greet');
    expect(problem?.message).toContain('no decorator metadata was emitted for this method');
    expect(problem?.fix).toContain('@Tool({ input: () => MyDto, ... })');
  });

  it('reports a DTO without validation metadata, a @Field without validator, and @ValidateNested without @Type', () => {
    class Bare {
      name!: string;
    }
    class Child {
      @IsInt()
      n!: number;
    }
    class Sloppy {
      @Field('described but not validated')
      note!: string;
      @IsString()
      ok!: string;
      @ValidateNested()
      child!: Child;
    }
    @McpServer({ name: 's', version: '1' })
    class Dtos {
      @Tool({ description: 'd' })
      bare(input: Bare) {
        return input;
      }
      @Tool({ description: 'd' })
      sloppy(input: Sloppy) {
        return input;
      }
    }
    const error = buildError(() => createMcpApp(Dtos));
    expect(error.problems.map((p) => `${p.where}: ${p.message}`)).toEqual([
      'Dtos.bare: DTO Bare has no class-validator decorators, so no argument could be validated',
      'Dtos.sloppy: Sloppy.note has @Field but no class-validator decorator, so it would be rejected as unknown',
      'Dtos.sloppy: Sloppy.child has @ValidateNested() but no @Type(() => SomeDto), so its value would stay a plain object',
    ]);
    expect(error.problems[2]?.fix).toBe('add `@Type(() => YourNestedDto)` (from class-transformer) to Sloppy.child');
  });

  it('reports primitive parameters, missing descriptions, static methods and undecorated classes together', () => {
    @McpServer({ name: 's', version: '1' })
    class Mixed {
      @Tool({ description: 'd' })
      shout(value: string) {
        return value;
      }
      @Tool({ description: '' })
      quiet() {}
      @Tool({ description: 'd' })
      static helper() {}
    }
    class Plain {}
    const error = buildError(() => createMcpApp([Mixed, Plain]));
    expect(error.problems.map((p) => p.where)).toEqual(['Mixed.shout', 'Mixed.quiet', 'Mixed.helper', 'Plain']);
    expect(error.problems[0]?.message).toBe('the first parameter is a string, but arguments are an object');
    expect(error.problems[1]?.message).toContain('the tool has no description');
    expect(error.problems[2]?.message).toBe('@Tool is on a static method');
    expect(error.problems[3]).toEqual({
      code: 'ARM103',
      where: 'Plain',
      message: 'the class is not decorated with @McpServer',
      fix: "@McpServer({ name: 'plain', version: '1.0.0' }) class Plain { ... }",
    });
  });

  it('treats a Context-only method as a tool without arguments', () => {
    @McpServer({ name: 's', version: '1' })
    class CtxOnly {
      @Tool({ description: 'd' })
      ping(ctx: Context) {
        return String(ctx.requestId);
      }
      @Tool({ description: 'd' })
      bare() {
        return 'ok';
      }
    }
    const tools = createMcpApp(CtxOnly).definition.tools;
    expect(tools.get('ping')?.input.kind).toBe('none');
    expect(tools.get('bare')?.input.kind).toBe('none');
    expect(tools.get('ping')?.inputSchema).toEqual({
      type: 'object',
      properties: {},
      additionalProperties: false,
    });
  });

  it('inherits tools from a base class, a re-decorated method in the subclass winning', () => {
    @McpServer({ name: 'base', version: '1' })
    class Base {
      @Tool({ description: 'base echo' })
      echo() {
        return 'base';
      }
      @Tool({ description: 'shared' })
      shared() {
        return 'shared';
      }
    }
    @McpServer({ name: 'child', version: '2' })
    class Child extends Base {
      @Tool({ description: 'child echo' })
      override echo() {
        return 'child';
      }
    }
    const app = createMcpApp(Child);
    expect(app.definition.toolList.map((t) => [t.name, t.description])).toEqual([
      ['shared', 'shared'],
      ['echo', 'child echo'],
    ]);
    expect(app.definition.info).toEqual({ name: 'child', version: '2', title: undefined });
  });

  it('freezes the definitions the runtime reads', () => {
    @McpServer({ name: 's', version: '1' })
    class Frozen {
      @Tool({ description: 'd' })
      greet(input: NameInput) {
        return input.name;
      }
    }
    const { definition } = createMcpApp(Frozen);
    const tool = definition.tools.get('greet');
    expect(Object.isFrozen(definition)).toBe(true);
    expect(Object.isFrozen(tool)).toBe(true);
    expect(Object.isFrozen(tool?.descriptor.inputSchema)).toBe(true);
    expect(Object.isFrozen(definition.toolList)).toBe(true);
  });

  it('reports nested DTO problems through @Type', () => {
    class Inner {
      plain!: string;
    }
    class Outer {
      @ValidateNested()
      @Type(() => Inner)
      inner!: Inner;
    }
    @McpServer({ name: 's', version: '1' })
    class NestedBad {
      @Tool({ description: 'd' })
      run(input: Outer) {
        return input;
      }
    }
    const error = buildError(() => createMcpApp(NestedBad));
    expect(error.problems.map((p) => p.message)).toEqual([
      'DTO Inner has no class-validator decorators, so no argument could be validated',
    ]);
  });
});
