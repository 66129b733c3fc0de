import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { sourceMappedStack } from '../../src/observability/source-mapped-stack.js';

const dir = mkdtempSync(join(tmpdir(), 'armature-maps-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('sourceMappedStack', () => {
  it('maps the frames of a file compiled with a source map to its TypeScript source, without --enable-source-maps', () => {
    expect(process.sourceMapsEnabled).toBe(false);
    writeFileSync(join(dir, 'greeter.ts'), "// a comment line\nexport function greet(): string {\n  throw new Error('kaput');\n}\n");
    writeFileSync(join(dir, 'package.json'), '{"type":"module"}');
    const tsc = spawnSync(
      join(import.meta.dirname, '../../node_modules/.bin/tsc'),
      [
        '--ignoreConfig',
        '--sourceMap',
        '--target',
        'es2022',
        '--module',
        'nodenext',
        '--outDir',
        join(dir, 'dist'),
        join(dir, 'greeter.ts'),
      ],
      { encoding: 'utf8' },
    );
    expect(tsc.status, tsc.stdout + tsc.stderr).toBe(0);
    // The stack Node writes for the compiled file (vitest would map an imported module's frames itself).
    const compiled = readFileSync(join(dir, 'dist', 'greeter.js'), 'utf8').split('\n');
    const line = compiled.findIndex((text) => text.includes("throw new Error('kaput')"));
    const column = (compiled[line] as string).indexOf('new Error');
    const stack = `Error: kaput\n    at greet (${pathToFileURL(join(dir, 'dist', 'greeter.js')).href}:${line + 1}:${column + 1})`;
    const mapped = sourceMappedStack(stack);
    expect(mapped).toContain(`${join(dir, 'greeter.ts')}:3:9`);
    expect(mapped).not.toContain('greeter.js');
    expect(sourceMappedStack('Error: x\n    at nowhere (/no/such/file.js:1:1)')).toBe('Error: x\n    at nowhere (/no/such/file.js:1:1)');
  });
});
