import { createRequire } from 'node:module';
import { getMetadataStorage, MetadataStorage } from 'class-validator';

const SHARED = ['typedi', 'class-transformer', 'class-validator'] as const;

const FIX =
  'Load typedi, class-transformer and class-validator once, the way Node resolves them: run the sources with ' +
  '`armature dev` / `armature inspect` (or `node` on the build); with your own vite, vite-node or vitest config set ' +
  "`ssr: { resolve: { mainFields: ['main'] } }` so your files do not get the ESM builds those packages list under " +
  '`module` while @armature/core gets their CommonJS builds; with two installed copies run `npm dedupe` and depend on ' +
  'one version of each (they are peer dependencies of @armature/core)';

/**
 * Two copies of class-validator share one global metadata store but each makes its own metadata
 * objects, so a foreign store or more than one metadata class means a second copy is running. The
 * loader that gave the user's files that copy gave them their own typedi and class-transformer too.
 */
function validatorCopies(): number {
  const storage: unknown = getMetadataStorage();
  if (!(storage instanceof MetadataStorage)) return 2;
  const classes = new Set<unknown>();
  for (const list of (storage as unknown as { validationMetadatas: Map<unknown, object[]> }).validationMetadatas.values()) {
    for (const metadata of list) classes.add(Object.getPrototypeOf(metadata));
  }
  return Math.max(1, classes.size);
}

/** Installed folders of each shared package that Node's `require` loaded (two = two installed copies). */
function installedCopies(): Map<string, Set<string>> {
  const found = new Map<string, Set<string>>();
  const pattern = new RegExp(`^(.*[\\\\/]node_modules[\\\\/](${SHARED.join('|')}))[\\\\/]`);
  for (const file of Object.keys(createRequire(import.meta.url).cache)) {
    const match = pattern.exec(file);
    if (!match) continue;
    const [, folder, name] = match as unknown as [string, string, string];
    found.set(name, (found.get(name) ?? new Set()).add(folder));
  }
  return found;
}

/**
 * Fails start-up when the user's decorators and @armature/core see different copies of typedi,
 * class-transformer or class-validator: `@Service()` classes would look unknown to the container
 * and `@Type()` records missing, with fixes that point at the wrong place.
 */
export function checkSingleInstance(): void {
  const problems: string[] = [];
  for (const [name, folders] of installedCopies()) {
    if (folders.size > 1) problems.push(`${name}: ${folders.size} copies are loaded (${[...folders].join(', ')})`);
  }
  if (problems.length === 0 && validatorCopies() > 1) {
    problems.push(
      'class-validator: two copies are loaded (your DTOs were decorated by one, @armature/core reads the other), so ' +
        'typedi and class-transformer are most likely split the same way and @Service() and @Type() would look missing',
    );
  }
  if (problems.length > 0) throw new SplitDependencyError(problems);
}

/** Thrown by the McpApp constructor when the app's runtime dependencies are loaded more than once. */
export class SplitDependencyError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`McpApp: your classes and @armature/core see different copies of their dependencies.\n  ${problems.join('\n  ')}\nFix: ${FIX}`);
    this.name = 'SplitDependencyError';
  }
}
