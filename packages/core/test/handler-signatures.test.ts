import { IsString } from 'class-validator';
import { describe, expect, it } from 'vitest';
import {
  ArmatureBuildError,
  Context,
  createMcpApp,
  getMetadataStorage,
  McpServer,
  Prompt,
  Resource,
  ResourceTemplate,
  Tool,
} from '../src/index.js';

function problemsOf(run: () => unknown): { code?: string; where: string; message: string; fix: string }[] {
  try {
    run();
  } catch (error) {
    if (error instanceof ArmatureBuildError) return error.problems.map((p) => ({ ...p }));
    throw error;
  }
  return [];
}

class NoteInput {
  @IsString()
  text!: string;
}

class ShippingAddress {
  @IsString()
  city!: string;
}

describe('a handler signature Armature does not serve is a start-up problem with its fix', () => {
  it('two DTO parameters (ARM145): the second would receive the Context', () => {
    @McpServer({ name: 's', version: '1' })
    class Two {
      @Tool({ description: 'd' })
      two(note: NoteInput, address: ShippingAddress) {
        return `${note.text} ${address.city}`;
      }
    }
    const [problem, ...rest] = problemsOf(() => createMcpApp(Two));
    expect(rest).toEqual([]);
    expect(problem).toMatchObject({ code: 'ARM145', where: 'Two.two' });
    expect(problem?.message).toContain('the second parameter is a DTO class (ShippingAddress)');
    expect(problem?.fix).toContain('@ValidateNested() @Type(() => ShippingAddress) shippingAddress!: ShippingAddress');
    expect(problem?.fix).toContain('(input: MyDto, ctx: Context)');
  });

  it('two DTO parameters of a prompt (ARM145)', () => {
    @McpServer({ name: 's', version: '1' })
    class TwoArgs {
      @Prompt({ name: 'p', description: 'd' })
      p(note: NoteInput, address: ShippingAddress) {
        return `${note.text} ${address.city}`;
      }
    }
    const [problem] = problemsOf(() => createMcpApp(TwoArgs));
    expect(problem).toMatchObject({ code: 'ARM145', where: 'TwoArgs.p' });
    expect(problem?.fix).toContain('(args: MyArgs, ctx: Context)');
  });

  it('a Context before the DTO (ARM146): the DTO would never be passed', () => {
    @McpServer({ name: 's', version: '1' })
    class ContextFirst {
      @Tool({ description: 'd' })
      note(ctx: Context, input: NoteInput) {
        return `${ctx.requestId} ${input.text}`;
      }
    }
    const [problem, ...rest] = problemsOf(() => createMcpApp(ContextFirst));
    expect(rest).toEqual([]);
    expect(problem).toMatchObject({ code: 'ARM146', where: 'ContextFirst.note' });
    expect(problem?.message).toBe(
      'the Context is parameter 1 of 2, but a tool is called with (input: MyDto, ctx: Context): the Context must come last',
    );
    expect(problem?.fix).toBe('take (input: MyDto, ctx: Context)');
  });

  it('a Context in the middle of three parameters (ARM146)', () => {
    @McpServer({ name: 's', version: '1' })
    class Middle {
      @Tool({ description: 'd' })
      note(input: NoteInput, ctx: Context, extra: string) {
        return `${input.text} ${ctx.requestId} ${extra}`;
      }
    }
    expect(problemsOf(() => createMcpApp(Middle))[0]).toMatchObject({ code: 'ARM146', where: 'Middle.note' });
  });

  it('a resource template taking a second parameter that is not the Context (ARM147)', () => {
    class Params {
      @IsString()
      id!: string;
    }
    @McpServer({ name: 's', version: '1' })
    class Files {
      @ResourceTemplate({ uriTemplate: 'files://{id}', name: 'file' })
      file(params: Params, encoding: string) {
        return `${params.id} ${encoding}`;
      }
    }
    const [problem] = problemsOf(() => createMcpApp(Files));
    expect(problem).toMatchObject({ code: 'ARM147', where: 'Files.file' });
    expect(problem?.message).toContain('a resource template is called with (params: MyParams, ctx: Context)');
    expect(problem?.fix).toBe('take (params: MyParams, ctx: Context), and read everything else from the DTO or the Context');
  });

  it('a Context first while `input` names the DTO (ARM148): the Context would receive the arguments', () => {
    @McpServer({ name: 's', version: '1' })
    class Named {
      @Tool({ description: 'd', input: () => NoteInput })
      note(ctx: Context) {
        return ctx.requestId;
      }
    }
    const [problem] = problemsOf(() => createMcpApp(Named));
    expect(problem).toMatchObject({ code: 'ARM148', where: 'Named.note' });
    expect(problem?.message).toContain('the method is given a DTO by `input`');
  });

  it('a Context first with a hand-written inputSchema (ARM148)', () => {
    @McpServer({ name: 's', version: '1' })
    class Raw {
      @Tool({ description: 'd', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } })
      note(ctx: Context) {
        return ctx.requestId;
      }
    }
    const [problem] = problemsOf(() => createMcpApp(Raw));
    expect(problem).toMatchObject({ code: 'ARM148', where: 'Raw.note' });
    expect(problem?.message).toContain('a hand-written inputSchema');
  });

  it('a second parameter that is not the Context (ARM147)', () => {
    @McpServer({ name: 's', version: '1' })
    class Second {
      @Tool({ description: 'd' })
      note(input: NoteInput, suffix: string) {
        return input.text + suffix;
      }
    }
    const [problem] = problemsOf(() => createMcpApp(Second));
    expect(problem).toMatchObject({ code: 'ARM147', where: 'Second.note' });
    expect(problem?.message).toBe(
      'parameter 2 is a string, but a tool is called with (input: MyDto, ctx: Context): parameter 2 would receive the Context',
    );
  });

  it('a resource reading a parameter it is never given (ARM147)', () => {
    @McpServer({ name: 's', version: '1' })
    class Config {
      @Resource({ uri: 'config://app', name: 'config' })
      config(uri: URL) {
        return uri.href;
      }
    }
    const [problem] = problemsOf(() => createMcpApp(Config));
    expect(problem).toMatchObject({ code: 'ARM147', where: 'Config.config' });
    expect(problem?.message).toBe(
      'parameter 1 is a URL, but a resource is called with (ctx: Context): parameter 1 would receive the Context',
    );
  });

  it('more parameters than a call passes, without decorator metadata (ARM147, from the declared count)', () => {
    @McpServer({ name: 's', version: '1' })
    class Unreflected {
      three(input: NoteInput, ctx: Context, more: string) {
        return `${input.text} ${ctx.requestId} ${more}`;
      }
    }
    getMetadataStorage().collectHandler({
      kind: 'tool',
      target: Unreflected,
      methodName: 'three',
      options: { description: 'd', input: () => NoteInput },
      paramTypes: undefined,
      declaredParamCount: 3,
      isStatic: false,
    });
    const [problem] = problemsOf(() => createMcpApp(Unreflected));
    expect(problem).toMatchObject({ code: 'ARM147', where: 'Unreflected.three' });
    expect(problem?.message).toContain('the method declares 3 parameters');
    expect(problem?.message).toContain('parameter 3 would always be undefined');
  });

  it('serves (input, ctx), (input), (ctx), () and a Context imported as a type', () => {
    type Ctx = Context;
    @McpServer({ name: 's', version: '1' })
    class Served {
      @Tool({ description: 'd' })
      both(input: NoteInput, ctx: Context) {
        return `${input.text} ${ctx.requestId}`;
      }
      @Tool({ description: 'd' })
      inputOnly(input: NoteInput) {
        return input.text;
      }
      @Tool({ description: 'd' })
      contextOnly(ctx: Context) {
        return ctx.requestId;
      }
      @Tool({ description: 'd' })
      none() {
        return 'ok';
      }
      @Tool({ description: 'd' })
      typeOnly(input: NoteInput, ctx: Ctx) {
        return `${input.text} ${ctx.requestId}`;
      }
      @Resource({ uri: 'config://app', name: 'config' })
      config(ctx: Context) {
        return ctx.requestId;
      }
    }
    expect(problemsOf(() => createMcpApp(Served))).toEqual([]);
  });
});
