import { relative } from 'node:path';
// TypeScript 7 has no JavaScript API: the 6.x compiler (aliased) reads the tsconfig chain here.
import ts from 'typescript6';
import { toPosix } from './project.js';

/** A decorator setting the project's tsconfig.json leaves out, with what it breaks and the fix. */
export interface MissingSetting {
  /** The tsconfig.json read, relative to the project. */
  readonly tsconfig: string;
  readonly setting: 'experimentalDecorators' | 'emitDecoratorMetadata';
  readonly code: 'ARM127' | 'ARM200';
  readonly message: string;
  readonly fix: string;
}

const FIX = 'set "experimentalDecorators": true and "emitDecoratorMetadata": true in the compilerOptions of tsconfig.json';

/**
 * The decorator settings Armature needs that the project's tsconfig.json (with what it extends)
 * does not turn on, read before anything runs: without `experimentalDecorators` TypeScript, vite-node
 * and the runtimes compile standard (TC39) decorators, which fail inside class-validator or as a
 * syntax error before any Armature message could appear. Empty when there is no tsconfig.json.
 */
export function missingDecoratorSettings(root: string): MissingSetting[] {
  const path = ts.findConfigFile(root, ts.sys.fileExists, 'tsconfig.json');
  if (!path || relative(root, path).startsWith('..')) return [];
  const read = ts.readConfigFile(path, ts.sys.readFile);
  if (read.error) return [];
  const { options } = ts.parseJsonConfigFileContent(read.config, ts.sys, root, undefined, path);
  const tsconfig = toPosix(relative(root, path));
  const missing: MissingSetting[] = [];
  if (options.experimentalDecorators !== true) {
    missing.push({
      tsconfig,
      setting: 'experimentalDecorators',
      code: 'ARM127',
      message:
        'decorators would compile as standard (TC39) decorators, which Armature does not support: tsc reports TS5052 (beside emitDecoratorMetadata) or TS1240/TS1241 for each decorator, and the server fails at its first decorator',
      fix: FIX,
    });
  }
  if (options.emitDecoratorMetadata !== true) {
    missing.push({
      tsconfig,
      setting: 'emitDecoratorMetadata',
      code: 'ARM200',
      message: 'no parameter or property types would be recorded, so DTO parameters and constructor injection are unknown',
      fix: FIX,
    });
  }
  return missing;
}

/** The missing settings as one start-up report: each with its code, then the fix once. */
export function describeMissingSettings(missing: readonly MissingSetting[]): string {
  const lines = missing.map((m, i) => `  ${i + 1}. ${m.tsconfig} does not set "${m.setting}": true: ${m.message} [${m.code}]`);
  return `Armature cannot run this project: ${missing.length} decorator setting(s) missing.\n${lines.join('\n')}\n     Fix: ${FIX}`;
}
