import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';

export interface PackageJson {
  name?: string;
  scripts?: Record<string, string>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

/** An Armature project on disk: the folder of its package.json. */
export interface Project {
  readonly root: string;
  readonly pkg: PackageJson;
}

/** A `@McpServer` class found in the sources. */
export interface ServerSource {
  readonly className: string;
  /** Path relative to the project root, with `/` separators. */
  readonly file: string;
}

export class ProjectError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProjectError';
  }
}

/** The helper the generated tests of a Nest project import: `connectMcp()`, written by `armature new --template nestjs`. */
export const NEST_TEST_HELPER = 'test/support/mcp-client.ts';

/** A Nest project: its servers are Nest providers, built by Nest's injector (`@armature/nestjs`). */
export function isNestProject(project: Project): boolean {
  return Boolean(project.pkg.dependencies?.['@armature/nestjs'] || project.pkg.devDependencies?.['@armature/nestjs']);
}

export const toPosix = (path: string): string => path.split(sep).join('/');

/** The nearest folder at or above `from` with a package.json that depends on `@armature/core`. */
export function findProject(from: string): Project {
  for (let dir = from; ; dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as PackageJson;
      if (pkg.dependencies?.['@armature/core'] || pkg.devDependencies?.['@armature/core']) return { root: dir, pkg };
      throw new ProjectError(
        `${file} does not depend on @armature/core, so this is not an Armature project.\n` +
          'Fix: run the command inside a project made with `npm create armature@latest`, or add @armature/core to it.',
      );
    }
    if (dirname(dir) === dir) {
      throw new ProjectError(`no package.json at or above ${from}.\nFix: run the command inside an Armature project.`);
    }
  }
}

/** Every `.ts` file under `dir` (relative to `root`), skipping declaration files and node_modules. */
export function listTypeScriptFiles(root: string, dir = 'src'): string[] {
  const base = join(root, dir);
  if (!existsSync(base)) return [];
  const files: string[] = [];
  const walk = (current: string) => {
    for (const entry of readdirSync(current, { withFileTypes: true })) {
      const path = join(current, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules' && !entry.name.startsWith('.')) walk(path);
      } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) files.push(toPosix(relative(root, path)));
    }
  };
  walk(base);
  return files.sort();
}

/** The `@McpServer` classes declared under `src/`. */
export function findServers(root: string): ServerSource[] {
  const servers: ServerSource[] = [];
  for (const file of listTypeScriptFiles(root)) {
    const source = readFileSync(join(root, file), 'utf8');
    for (const match of source.matchAll(/@McpServer\s*\(/g)) {
      const after = source.slice(match.index as number);
      const cls = /\bclass\s+([A-Za-z_$][\w$]*)/.exec(after);
      if (cls) servers.push({ className: cls[1] as string, file });
    }
  }
  return servers;
}

/** A relative import specifier from one project file to another, ending in `.js` as NodeNext wants. */
export function importPath(fromFile: string, toFile: string): string {
  const path = toPosix(relative(dirname(fromFile), toFile)).replace(/\.ts$/, '.js');
  return path.startsWith('.') ? path : `./${path}`;
}
