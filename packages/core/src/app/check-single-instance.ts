import type { Constructor } from '../metadata/metadata-args.js';
import { decoratedByAnotherCopy } from '../seams/class-validator.js';

const FIX =
  'Load typedi, class-transformer and class-validator once, the way Node resolves them: run the sources with ' +
  '`armature dev` / `armature inspect` (or `node` on the build); with your own vite, vite-node or vitest config set ' +
  "`ssr: { resolve: { mainFields: ['main'] } }` so your files do not get the ESM builds those packages list under " +
  '`module` while @armature/core gets their CommonJS builds; with two installed copies run `npm dedupe` and depend on ' +
  'one version of each (they are peer dependencies of @armature/core)';

/** The classes the servers' methods take, read from their decorator metadata. */
function parameterClasses(serverClasses: readonly Constructor[]): Set<Function> {
  const classes = new Set<Function>();
  for (const server of serverClasses) {
    for (let proto = server.prototype; proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
      for (const name of Object.getOwnPropertyNames(proto)) {
        const types = (Reflect.getMetadata?.('design:paramtypes', proto, name) as unknown[] | undefined) ?? [];
        for (const type of types) if (typeof type === 'function' && type !== Object) classes.add(type);
      }
    }
  }
  return classes;
}

/**
 * Fails start-up when the user's DTOs were decorated by another copy of class-validator than the
 * one @armature/core imports. The loader (or install) that split class-validator split typedi and
 * class-transformer the same way, and those do not share state between copies: `@Service()`
 * classes would look unknown to the container and `@Type()` records missing, with fixes pointing
 * at the wrong place. Only the app's own DTOs count, so a library bundling its own copy is no
 * false alarm.
 */
export function checkSingleInstance(serverClasses: readonly Constructor[]): void {
  const foreign = [...parameterClasses(serverClasses)].filter(decoratedByAnotherCopy);
  if (foreign.length > 0) throw new SplitDependencyError(foreign.map((dto) => dto.name));
}

/** Thrown by the McpApp constructor when the app's runtime dependencies are loaded more than once. */
export class SplitDependencyError extends Error {
  constructor(readonly dtos: readonly string[]) {
    super(
      `McpApp: your classes and @armature/core see different copies of their dependencies.\n` +
        `  ${dtos.join(', ')} ${dtos.length === 1 ? 'was' : 'were'} decorated by another copy of class-validator than the one @armature/core reads, ` +
        'so typedi and class-transformer are most likely split the same way and @Service() and @Type() would look missing\n' +
        `Fix: ${FIX}`,
    );
    this.name = 'SplitDependencyError';
  }
}
