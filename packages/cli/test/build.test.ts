import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/index.js';

// What armature build keeps of how Node loads a library, on a small project of hand-written files
// (no Armature in it; the e2e tests bundle real generated projects): a CommonJS package reading a
// file next to itself with __dirname, an ES package doing so with import.meta.url, an ES module
// asking whether __dirname exists, and an optional import of a package that is not installed.

const root = realpathSync(mkdtempSync(join(tmpdir(), 'armature-build-')));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function write(path: string, text: string): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
}

write('package.json', JSON.stringify({ name: 'app', type: 'module', dependencies: { '@armature/core': '0.1.0' } }));
write('node_modules/cjs-lib/package.json', JSON.stringify({ name: 'cjs-lib', main: 'index.js' }));
write('node_modules/cjs-lib/data.txt', 'read by __dirname');
write(
  'node_modules/cjs-lib/index.js',
  "const { readFileSync } = require('node:fs');\nconst { join } = require('node:path');\n" +
    "module.exports = () => readFileSync(join(__dirname, 'data.txt'), 'utf8') + ' in ' + require('node:path').basename(__filename);\n",
);
write('node_modules/esm-lib/package.json', JSON.stringify({ name: 'esm-lib', type: 'module', exports: './index.js' }));
write('node_modules/esm-lib/data.txt', 'read by import.meta.url');
write(
  'node_modules/esm-lib/index.js',
  "import { readFileSync } from 'node:fs';\n" +
    "export const read = () => readFileSync(new URL('./data.txt', import.meta.url), 'utf8');\n" +
    'export const hasDirname = () => typeof __dirname;\n',
);
write(
  'dist/main.js',
  "import cjs from 'cjs-lib';\nimport { hasDirname, read } from 'esm-lib';\n" +
    "let optional = 'not installed';\ntry { await import('not-installed-lib'); optional = 'installed'; } catch {}\n" +
    "/** A comment — not ASCII. */\nconst accented = 'café → ok';\n" +
    'console.log(JSON.stringify([cjs(), read(), hasDirname(), optional, accented]));\n',
);

/** A fresh folder holding an Armature project's package.json (what armature build looks for). */
function armatureProject(name: string): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), `armature-build-${name}-`)));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, type: 'module', dependencies: { '@armature/core': '0.1.0' } }));
  return dir;
}

const runs = (entry: string) => {
  const run = spawnSync(process.execPath, [entry], { cwd: root, encoding: 'utf8' });
  expect(run.stderr).toBe('');
  return JSON.parse(run.stdout) as unknown;
};

describe('armature build', () => {
  it('bundles into dist/bundle, and each library still finds the files next to it as under Node', async () => {
    const built = await buildApp({ cwd: root });
    expect(built.entry).toBe('dist/bundle/main.mjs');
    expect(built.notInstalled).toEqual(['not-installed-lib']);
    const expected = ['read by __dirname in index.js', 'read by import.meta.url', 'undefined', 'not installed', 'café → ok'];
    expect(runs('dist/main.js')).toEqual(expected);
    expect(runs('dist/bundle/main.mjs')).toEqual(expected);
    // ASCII only (escaped strings, no JSDoc): V8 keeps and scans it as one-byte text.
    expect(readFileSync(join(root, 'dist/bundle/main.app.mjs'), 'utf8')).not.toMatch(/[^\t\n\r\x20-\x7e]/);
  });

  it('writes a launcher as the entry, which starts the app on Node 20 (no compile cache there) as it did', async () => {
    const built = await buildApp({ cwd: root });
    expect(readFileSync(join(root, built.entry), 'utf8')).toContain('await import("./main.app.mjs")');
    expect(built.files).toEqual(
      expect.arrayContaining(['dist/bundle/main.mjs', 'dist/bundle/main.app.mjs', 'dist/bundle/main.app.mjs.map']),
    );
    // Node 22's side: apps/runtimes/test/node-compile-cache.test.ts.
  });

  it('--target workers writes one module to dist/worker with no import.meta.url left (workerd gives modules none)', async () => {
    const built = await buildApp({ cwd: root, entry: 'dist/main.js', target: 'workers' });
    expect(built.entry).toBe('dist/worker/main.mjs');
    expect(built.files.filter((file) => file.endsWith('.mjs'))).toEqual(['dist/worker/main.mjs']);
    const code = readFileSync(join(root, built.entry), 'utf8');
    expect(code).not.toContain('import.meta.url');
    expect(code).toContain('file:///worker/');
  });

  it("chains tsc's source maps: under --enable-source-maps a stack from the bundle names the .ts file", async () => {
    const app = armatureProject('maps');
    try {
      mkdirSync(join(app, 'src'));
      writeFileSync(join(app, 'src/fail.ts'), "export function fail(): never {\n  throw new Error('from fail.ts');\n}\n");
      writeFileSync(join(app, 'src/main.ts'), "import { fail } from './fail.js';\n\nfail();\n");
      writeFileSync(
        join(app, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: { target: 'ES2022', module: 'NodeNext', rootDir: 'src', outDir: 'dist', sourceMap: true, types: [] },
          include: ['src'],
        }),
      );
      const tsc = join(dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin', 'tsc');
      const compiled = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: app, encoding: 'utf8' });
      expect(compiled.status, compiled.stdout + compiled.stderr).toBe(0);
      await buildApp({ cwd: app });
      const run = spawnSync(process.execPath, ['--enable-source-maps', 'dist/bundle/main.mjs'], { cwd: app, encoding: 'utf8' });
      expect(run.stderr).toContain('Error: from fail.ts');
      expect(run.stderr).toMatch(/at fail \(\S*src\/fail\.ts:2:9\)/);
    } finally {
      rmSync(app, { recursive: true, force: true });
    }
  });

  it("leaves the SDK's Ajv out of the bundle and loads it from node_modules the first time a JSON Schema is validated", async () => {
    const app = armatureProject('ajv');
    try {
      // The SDK as a project has it: a package of node_modules (pnpm's symlink into its store).
      const core = dirname(createRequire(import.meta.url).resolve('@armature/core/package.json'));
      const sdk = dirname(dirname(createRequire(join(core, 'package.json')).resolve('@modelcontextprotocol/server')));
      mkdirSync(join(app, 'node_modules/@modelcontextprotocol'), { recursive: true });
      symlinkSync(sdk, join(app, 'node_modules/@modelcontextprotocol/server'));
      mkdirSync(join(app, 'dist'));
      // The SDK's default validator (what an McpServer checks elicitation answers with): not loaded before the first schema.
      writeFileSync(
        join(app, 'dist/main.js'),
        "import { createRequire } from 'node:module';\nimport { fromJsonSchema } from '@modelcontextprotocol/server';\n" +
          'const ajvLoaded = () => Object.keys(createRequire(import.meta.url).cache).some((file) => /ajvProvider/.test(file));\n' +
          'const before = ajvLoaded();\n' +
          "const schema = fromJsonSchema({ type: 'object', properties: { a: { type: 'number' } }, required: ['a'] });\n" +
          "const check = async (value) => { const result = await schema['~standard'].validate(value); return result.issues ? result.issues.map((issue) => issue.message).join('; ') : 'valid'; };\n" +
          'console.log(JSON.stringify([await check({ a: 1 }), await check({ a: "x" }), before, ajvLoaded()]));\n',
      );
      const built = await buildApp({ cwd: app });
      for (const file of built.files.filter((name) => name.endsWith('.mjs'))) {
        expect(readFileSync(join(app, file), 'utf8'), file).not.toContain('ajv implementation error');
      }
      const run = spawnSync(process.execPath, [built.entry], { cwd: app, encoding: 'utf8' });
      expect(run.stderr).toBe('');
      expect(JSON.parse(run.stdout)).toEqual(['valid', 'data/a must be number', false, true]);
    } finally {
      rmSync(app, { recursive: true, force: true });
    }
  });

  it('takes the ES builds of class-validator, class-transformer and typedi, with the same results as their CommonJS under Node', async () => {
    const app = armatureProject('es-builds');
    try {
      const core = dirname(createRequire(import.meta.url).resolve('@armature/core/package.json'));
      const fromCore = createRequire(join(core, 'package.json'));
      for (const name of ['class-validator', 'class-transformer', 'typedi', 'reflect-metadata']) {
        mkdirSync(join(app, 'node_modules'), { recursive: true });
        let dir = dirname(fromCore.resolve(name));
        while (!existsSync(join(dir, 'package.json'))) dir = dirname(dir);
        symlinkSync(dir, join(app, 'node_modules', name));
      }
      mkdirSync(join(app, 'dist'));
      // A nested DTO (@Type, @ValidateNested) and a typedi service, decorators applied by hand.
      writeFileSync(
        join(app, 'dist/main.js'),
        "import 'reflect-metadata';\nimport { plainToInstance, Type } from 'class-transformer';\n" +
          "import { IsIn, IsString, ValidateNested, validate } from 'class-validator';\nimport { Container, Service } from 'typedi';\n" +
          "class Filters {}\nIsIn(['doc', 'code'], { each: true })(Filters.prototype, 'kinds');\n" +
          "class Search {}\nIsString()(Search.prototype, 'query');\nValidateNested()(Search.prototype, 'filters');\nType(() => Filters)(Search.prototype, 'filters');\n" +
          "class Greeter { greet() { return 'hello'; } }\nService()(Greeter);\n" +
          'const errors = (plain) => validate(plainToInstance(Search, plain)).then((found) => JSON.stringify(found.map((e) => [e.property, e.children.map((c) => c.property)])));\n' +
          "console.log(JSON.stringify([await errors({ query: 'a', filters: { kinds: ['doc'] } }), await errors({ query: 1, filters: { kinds: ['nope'] } }), plainToInstance(Search, { filters: {} }).filters instanceof Filters, Container.get(Greeter).greet()]));\n",
      );
      const built = await buildApp({ cwd: app });
      const code = readFileSync(join(app, built.entry), 'utf8');
      expect(code).not.toMatch(/\/(class-validator|class-transformer|typedi)\/cjs\//);
      const expected = ['[]', '[["query",[]],["filters",["kinds"]]]', true, 'hello'];
      for (const entry of ['dist/main.js', built.entry]) {
        const run = spawnSync(process.execPath, [entry], { cwd: app, encoding: 'utf8' });
        expect(run.stderr, entry).toBe('');
        expect(JSON.parse(run.stdout), entry).toEqual(expected);
      }
    } finally {
      rmSync(app, { recursive: true, force: true });
    }
  });

  it('names a file of the app that is missing, in plain text, with the fix', async () => {
    const broken = armatureProject('broken');
    try {
      mkdirSync(join(broken, 'dist'));
      writeFileSync(join(broken, 'dist/main.js'), "import './gone.js';\n");
      const error = await buildApp({ cwd: broken }).then(
        () => undefined,
        (reason: Error) => reason,
      );
      expect(error?.message).toMatch(/^armature build could not bundle dist\/main\.js: Build failed with 1 error:\n/);
      expect(error?.message).toContain("Could not resolve './gone.js' in dist/main.js");
      expect(error?.message).not.toContain('\u001b[');
      expect(error?.message.split('\n').at(-1)).toBe(
        'Fix: if a file of your app is missing, compile again (npm run build); if a library is what fails, leave it out of the bundle with --external <package> (it is then imported from node_modules at run time).',
      );
    } finally {
      rmSync(broken, { recursive: true, force: true });
    }
  });
});
