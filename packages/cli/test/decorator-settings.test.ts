import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { describeMissingSettings, missingDecoratorSettings } from '../src/util/decorator-settings.js';
import { tempDir } from './support/packed-project.js';

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

function project(files: Record<string, unknown>): string {
  const root = tempDir('armature-settings-');
  roots.push(root);
  for (const [path, json] of Object.entries(files)) writeFileSync(join(root, path), JSON.stringify(json));
  return root;
}

describe('missingDecoratorSettings reads the tsconfig chain before anything runs', () => {
  it('finds nothing when both settings are on, through extends', () => {
    const root = project({
      'tsconfig.base.json': { compilerOptions: { experimentalDecorators: true, emitDecoratorMetadata: true } },
      'tsconfig.json': { extends: './tsconfig.base.json', compilerOptions: { strict: true } },
    });
    expect(missingDecoratorSettings(root)).toEqual([]);
  });

  it('names each missing setting with its code, and the fix once', () => {
    const root = project({ 'tsconfig.json': { compilerOptions: { emitDecoratorMetadata: false } } });
    const missing = missingDecoratorSettings(root);
    expect(missing.map((m) => [m.setting, m.code])).toEqual([
      ['experimentalDecorators', 'ARM127'],
      ['emitDecoratorMetadata', 'ARM200'],
    ]);
    expect(describeMissingSettings(missing).split('\n')).toEqual([
      'Armature cannot run this project: 2 decorator setting(s) missing.',
      '  1. tsconfig.json does not set "experimentalDecorators": true: decorators would compile as standard (TC39) decorators, which Armature does not support: tsc reports TS5052 (beside emitDecoratorMetadata) or TS1240/TS1241 for each decorator, and the server fails at its first decorator [ARM127]',
      '  2. tsconfig.json does not set "emitDecoratorMetadata": true: no parameter or property types would be recorded, so DTO parameters and constructor injection are unknown [ARM200]',
      '     Fix: set "experimentalDecorators": true and "emitDecoratorMetadata": true in the compilerOptions of tsconfig.json',
    ]);
  });

  it('finds nothing without a tsconfig.json of the project', () => {
    expect(missingDecoratorSettings(project({ 'package.json': { name: 'x' } }))).toEqual([]);
  });
});
