import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PlannedFile } from '../util/file-plan.js';
import { serverBaseName, serverClassName } from '../util/names.js';
import { findServers, importPath, isNestProject, NEST_TEST_HELPER, type Project, type ServerSource } from '../util/project.js';
import type { Ui } from '../util/ui.js';
import { type FieldSpec, parseFields } from './field-spec.js';

/** The kinds `armature generate` knows. */
export type GenerateKind = 'server' | 'tool' | 'resource' | 'prompt' | 'dto' | 'app' | 'openapi' | 'skill';
export const GENERATE_KINDS: readonly GenerateKind[] = ['server', 'tool', 'resource', 'prompt', 'dto', 'app', 'openapi', 'skill'];

export interface GenerateOptions {
  /** The `@McpServer` class (or its base name) that receives a tool, resource or prompt; openapi: the name of the server it writes. */
  server?: string;
  /** `--fields`: the input DTO (tool, dto), the params (resource template) or the arguments (prompt). */
  fields?: string;
  /** `--output`: the fields of a tool's output DTO. */
  output?: string;
  /** `--read-only`: the tool changes nothing (`readOnlyHint: true`). */
  readOnly?: boolean;
  /** `--tags`: openapi: only the operations with one of these tags (comma-separated). */
  tags?: string;
  /** `--operations`: openapi: only these operationIds (comma-separated), besides those of `tags`. */
  operations?: string;
  /** `--uri`: a resource's URI, or a URI template with `{variables}`. */
  uri?: string;
  force?: boolean;
  dryRun?: boolean;
  /** Run the project's Biome on the written files. Default true. */
  format?: boolean;
}

export class GenerateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GenerateError';
  }
}

/** What a generator returns: the files to write and what to tell the user afterwards. */
export interface GeneratePlan {
  readonly files: PlannedFile[];
  readonly summary: string;
  readonly next?: string;
}

/** The server a member goes into, and the source of its file. */
export interface TargetServer extends ServerSource {
  /** Folder of the server file relative to `src/`, e.g. `weather`. */
  readonly dir: string;
  readonly source: string;
}

export function readSource(project: Project, file: string): string {
  return readFileSync(join(project.root, file), 'utf8');
}

/** Picks the server named by `--server`, the only one there is, or asks. */
export async function resolveServer(project: Project, wanted: string | undefined, ui: Ui, what: string): Promise<TargetServer> {
  const servers = findServers(project.root);
  if (servers.length === 0) {
    throw new GenerateError(
      isNestProject(project)
        ? `no @McpServer class was found under src/.\nFix: add @McpServer({ name: '...', version: '0.1.0' }) above @Injectable() on a provider of a module AppModule imports, then add the ${what} to it with --server.`
        : `no @McpServer class was found under src/.\nFix: armature generate server <name>, then add the ${what} to it.`,
    );
  }
  const list = servers.map((s) => `  ${s.className} (${s.file})`).join('\n');
  let chosen: ServerSource | undefined;
  if (wanted) {
    const className = serverClassName(wanted);
    chosen = servers.find((s) => s.className === wanted || s.className === className);
    if (!chosen) throw new GenerateError(`no @McpServer class is called ${className}. The servers are:\n${list}`);
  } else if (servers.length === 1) {
    chosen = servers[0];
  } else if (ui.interactive) {
    const className = await ui.select(
      `Which server gets the ${what}?`,
      servers.map((s) => ({ value: s.className, label: s.className, hint: s.file })),
      servers[0]?.className as string,
    );
    chosen = servers.find((s) => s.className === className);
  } else {
    throw new GenerateError(`this project has several servers; say which one gets the ${what} with --server. The servers are:\n${list}`);
  }
  const server = chosen as ServerSource;
  const dir = server.file
    .replace(/^src\//, '')
    .split('/')
    .slice(0, -1)
    .join('/');
  return { ...server, dir, source: readSource(project, server.file) };
}

/** `--fields`, or the default when it was not given. */
export function fieldsOr(text: string | undefined, fallback: string): FieldSpec[] {
  return parseFields(text ?? fallback);
}

/** `src/<dir>/<file>` without a doubled slash when `dir` is empty. */
export function srcPath(dir: string, file: string): string {
  return dir === '' ? `src/${file}` : `src/${dir}/${file}`;
}

/** The test mirroring `src/<dir>/<file>`: `test/<dir>/<file>`. */
export function testPath(dir: string, file: string): string {
  return dir === '' ? `test/${file}` : `test/${dir}/${file}`;
}

/** Refuses a name some other `@Tool`/`@Prompt`/`@Resource` in the sources already has. */
export function assertNameFree(project: Project, sources: readonly string[], pattern: RegExp, message: string): void {
  for (const file of sources) {
    if (pattern.test(readSource(project, file))) throw new GenerateError(`${message} (in ${file})`);
  }
}

export const serverBase = (name: string): string => serverBaseName(name);

/**
 * In a Nest project, the import path from `testFile` to the `connectMcp()` helper its generated
 * tests use (the server is built by Nest's injector, not by the testing app's typedi); otherwise
 * undefined.
 */
export function nestTestHelper(project: Project, testFile: string): string | undefined {
  if (!isNestProject(project)) return undefined;
  if (!existsSync(join(project.root, NEST_TEST_HELPER))) {
    throw new GenerateError(
      `this Nest project has no ${NEST_TEST_HELPER}, whose connectMcp() the generated test uses to build the app with Nest's injector.\n` +
        `Fix: copy it from a project made by \`armature new <name> --template nestjs\` (it imports AppModule from src/app.module.ts), then run this command again.`,
    );
  }
  return importPath(testFile, NEST_TEST_HELPER);
}
