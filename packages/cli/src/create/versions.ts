import { readFileSync } from 'node:fs';

const own = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

/** The Armature version a new project depends on: the CLI's own (the packages are released together). */
export const ARMATURE_VERSION = own.version;

/**
 * Exact versions a new project pins, the set Armature is built and tested with (see TOOLCHAIN:
 * vitest 5 and tsup 9 need Node 22; vite-node because tsx/esbuild emit no decorator metadata).
 * A test checks they equal the CLI's own devDependencies, which the generated-project test links.
 */
export const PINNED = {
  'class-transformer': '0.5.1',
  'class-validator': '0.15.1',
  typedi: '0.10.0',
  '@biomejs/biome': '2.6.8',
  '@types/node': '20.19.43',
  typescript: '7.0.2',
  vite: '8.3.8',
  'vite-node': '6.0.0',
  vitest: '4.1.12',
} as const;

/**
 * What `--template nestjs` adds, the versions @armature/nestjs and apps/nestjs-example are built and
 * tested with (a test checks they equal @armature/nestjs's devDependencies).
 */
export const NEST_PINNED = {
  '@nestjs/common': '12.5.1',
  '@nestjs/core': '12.5.1',
  '@nestjs/platform-express': '12.5.1',
  '@modelcontextprotocol/client': '2.4.0',
  'reflect-metadata': '0.2.2',
  rxjs: '7.8.2',
} as const;

/**
 * The Bun and Deno versions `--runtime bun|deno` projects are tested on (apps/runtimes, and the CLI's
 * e2e test run these; a test checks both pin them).
 */
export const RUNTIME_TESTED = { bun: '1.4.5', deno: '2.9.6' } as const;
