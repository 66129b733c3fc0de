import { createRequire } from 'node:module';
import * as ownCopy from 'class-validator';
import { describe, expect, it } from 'vitest';
import { createMcpApp, McpServer, Tool } from '../../src/index.js';

type ClassValidator = typeof import('class-validator');

// The split a bundler-style loader produces: the user's DTOs decorated by one build of
// class-validator while @armature/core reads another. Both builds (CommonJS under `main`, ESM
// under `module`) are loaded for real; whichever is not the copy core got plays the user's.
const cjs = createRequire(import.meta.url)('class-validator') as ClassValidator;
const esm = (await import('class-validator/esm5/index.js' as string)) as ClassValidator;
const foreign = cjs.IsString === ownCopy.IsString ? esm : cjs;

describe('McpApp start-up with two copies of class-validator', () => {
  it('fails with the cause and the fix when a DTO was decorated by the other copy', () => {
    expect(foreign.IsString).not.toBe(ownCopy.IsString);
    class Greeting {
      name!: string;
    }
    foreign.IsString()(Greeting.prototype, 'name');
    @McpServer({ name: 'split', version: '1.0.0' })
    class SplitServer {
      @Tool({ description: 'Says hello.' })
      hello(input: Greeting) {
        return `hello ${input.name}`;
      }
    }
    expect(() => createMcpApp([SplitServer])).toThrow(
      'McpApp: your classes and @armature/core see different copies of their dependencies.\n' +
        '  Greeting was decorated by another copy of class-validator than the one @armature/core reads, so typedi and ' +
        'class-transformer are most likely split the same way and @Service() and @Type() would look missing\n' +
        'Fix: Load typedi, class-transformer and class-validator once, the way Node resolves them',
    );
  });

  it('starts when the other copy decorated only classes the app does not take', async () => {
    class Unrelated {
      name!: string;
    }
    foreign.IsString()(Unrelated.prototype, 'name');
    class Greeting {
      name!: string;
    }
    ownCopy.IsString()(Greeting.prototype, 'name');
    @McpServer({ name: 'whole', version: '1.0.0' })
    class WholeServer {
      @Tool({ description: 'Says hello.' })
      hello(input: Greeting) {
        return `hello ${input.name}`;
      }
    }
    const app = createMcpApp([WholeServer]);
    await app.close();
  });
});
