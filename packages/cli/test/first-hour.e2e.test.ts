import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARMATURE_BIN, createArmatureBin, installedArmature, packedInstall, run, tempDir } from './support/packed-project.js';

// A generated project (packed packages, npm) with one decorator setting taken out of its
// tsconfig.json at a time: every way a user runs it names the setting, its code and the fix.

const FIX = 'set "experimentalDecorators": true and "emitDecoratorMetadata": true';
const CASES = [
  { setting: 'experimentalDecorators', code: 'ARM127', runtime: 'was called as a standard (TC39) decorator' },
  { setting: 'emitDecoratorMetadata', code: 'ARM200', runtime: 'no decorator metadata was emitted for this method' },
] as const;

describe.sequential('a generated project without a decorator setting', () => {
  let base: string;
  let root: string;
  let tsconfig: string;

  beforeAll(async () => {
    expect(existsSync(ARMATURE_BIN), 'packages/cli is built (pnpm turbo run build)').toBe(true);
    base = tempDir('armature-flags-');
    const created = await run(process.execPath, [await createArmatureBin(), 'flags-mcp', '--yes', '--pm', 'npm', '--no-install'], base);
    expect(created.code, created.stdout + created.stderr).toBe(0);
    root = join(base, 'flags-mcp');
    await packedInstall(root, 'npm');
    tsconfig = readFileSync(join(root, 'tsconfig.json'), 'utf8');
  }, 360_000);

  afterAll(() => {
    if (base) rmSync(base, { recursive: true, force: true });
  });

  for (const { setting, code, runtime } of CASES) {
    it(`without ${setting}: check, inspect, dev and node dist/main.js name it (${code}) and the fix`, async () => {
      const options = JSON.parse(tsconfig) as { compilerOptions: Record<string, unknown> };
      expect(options.compilerOptions[setting]).toBe(true);
      delete options.compilerOptions[setting];
      writeFileSync(join(root, 'tsconfig.json'), JSON.stringify(options, null, 2));
      try {
        const named = `tsconfig.json does not set "${setting}": true`;
        const check = await installedArmature(root, ['check']);
        expect(check.code).toBe(1);
        expect(check.stdout).toContain(`decorator-settings  tsconfig.json: does not set "${setting}": true`);
        expect(check.stdout).toContain(`[${code}]. Fix: ${FIX}`);

        for (const command of [['inspect'], ['dev']]) {
          const result = await installedArmature(root, command, 60_000);
          const output = result.stdout + result.stderr;
          expect(result.code, `armature ${command[0]}`).not.toBe(0);
          expect(output, `armature ${command[0]}`).toContain(named);
          expect(output, `armature ${command[0]}`).toContain(`[${code}]`);
          expect(output, `armature ${command[0]}`).toContain(`Fix: ${FIX}`);
        }

        // tsc still writes dist/ (refusing emitDecoratorMetadata alone with TS5052, but writing it).
        rmSync(join(root, 'dist'), { recursive: true, force: true });
        const tsc = await run(join(root, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.build.json'], root);
        if (setting === 'experimentalDecorators') expect(tsc.stdout).toContain('error TS5052');
        const started = await run(process.execPath, ['dist/main.js'], root, 30_000);
        expect(started.code).toBe(1);
        expect(started.stderr).toContain(runtime);
        expect(started.stderr).toContain(`[${code}]`);
        expect(started.stderr).toContain(setting === 'experimentalDecorators' ? `Fix: ${FIX}` : '"emitDecoratorMetadata": true');
        expect(started.stderr).not.toContain("reading 'constructor'");
      } finally {
        writeFileSync(join(root, 'tsconfig.json'), tsconfig);
      }
    }, 240_000);
  }
});
