import { createRequire } from 'node:module';
import { IsString, getMetadataStorage as validatorStorage } from 'class-validator';
import { afterEach, describe, expect, it } from 'vitest';
import { createMcpApp, McpServer, Tool } from '../../src/index.js';

type ClassValidator = typeof import('class-validator');

// The split a bundler-style loader produces: the user's DTOs decorated by one build of
// class-validator (here the ESM one its package lists under `module`) while @armature/core reads
// another (the CommonJS one Node gives it). Both builds are loaded for real; one is foreign to core.
const cjs = createRequire(import.meta.url)('class-validator') as ClassValidator;
const esm = (await import('class-validator/esm5/index.js' as string)) as ClassValidator;

const decorated: Function[] = [];
afterEach(() => {
  const metadatas = (validatorStorage() as unknown as { validationMetadatas: Map<unknown, unknown> }).validationMetadatas;
  for (const target of decorated.splice(0)) metadatas.delete(target);
});

@McpServer({ name: 'split', version: '1.0.0' })
class SplitServer {
  @Tool({ description: 'Says hello.' })
  hello() {
    return 'hello';
  }
}

describe('McpApp start-up with two copies of class-validator', () => {
  it('fails with the cause and the fix instead of a misleading per-class error', () => {
    class FromCjs {
      name!: string;
    }
    class FromEsm {
      name!: string;
    }
    cjs.IsString()(FromCjs.prototype, 'name');
    esm.IsString()(FromEsm.prototype, 'name');
    decorated.push(FromCjs, FromEsm);

    expect(() => createMcpApp([SplitServer])).toThrow(
      'McpApp: your classes and @armature/core see different copies of their dependencies.\n' +
        '  class-validator: two copies are loaded (your DTOs were decorated by one, @armature/core reads the other), so ' +
        'typedi and class-transformer are most likely split the same way and @Service() and @Type() would look missing\n' +
        'Fix: Load typedi, class-transformer and class-validator once, the way Node resolves them',
    );
  });

  it('starts when every DTO was decorated by the copy core reads', async () => {
    class Plain {
      name!: string;
    }
    IsString()(Plain.prototype, 'name');
    decorated.push(Plain);
    const app = createMcpApp([SplitServer]);
    await app.close();
  });
});
