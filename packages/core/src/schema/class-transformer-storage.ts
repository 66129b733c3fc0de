// class-transformer keeps `@Type` records in a storage it does not export from its index. Importing
// the CommonJS file from the same package copy as the decorators keeps one storage (TOOLCHAIN trap 6).
// @ts-expect-error: the file ships without type declarations
import * as storageModule from 'class-transformer/cjs/storage.js';

/** A `@Type(() => X)` record as class-transformer keeps it. */
export interface TypeMetadata {
  typeFunction: (options?: unknown) => unknown;
  reflectedType: unknown;
  options?: { discriminator?: unknown };
}

/** A `@Transform(fn)` record as class-transformer keeps it. */
export interface TransformMetadata {
  transformFn: (params: { value: unknown; key: string; obj: unknown; type: number; options: unknown }) => unknown;
  options?: { groups?: string[]; since?: number; until?: number };
}

interface TransformerStorage {
  findTypeMetadata(target: unknown, propertyName: string): TypeMetadata | undefined;
  findTransformMetadatas(target: unknown, propertyName: string, transformationType: number): TransformMetadata[];
  getStrategy(target: unknown): string;
  getExposedMetadatas(target: unknown): unknown[];
  getExcludedMetadatas(target: unknown): unknown[];
}

const storage = ((storageModule as { defaultMetadataStorage?: TransformerStorage }).defaultMetadataStorage ??
  (storageModule as { default: { defaultMetadataStorage: TransformerStorage } }).default.defaultMetadataStorage) as TransformerStorage;

/** class-transformer's TransformationType.PLAIN_TO_CLASS. */
export const PLAIN_TO_CLASS = 0;

/** The class named by `@Type(() => X)` on `target.propertyName`, if any. */
export function findDeclaredType(target: Function, propertyName: string): unknown {
  const meta = storage.findTypeMetadata(target, propertyName);
  return meta ? meta.typeFunction() : undefined;
}

/** The `@Type` record of `target.propertyName` (own or inherited), if any. */
export function findTypeMetadata(target: Function, propertyName: string): TypeMetadata | undefined {
  return storage.findTypeMetadata(target, propertyName);
}

/**
 * The `@Transform` functions plainToInstance applies to `target.propertyName`, in its order, with
 * the filter it applies when no `groups` option is given (a transform restricted to groups never runs).
 */
export function transformsToClass(target: Function | undefined, propertyName: string): TransformMetadata[] {
  return storage.findTransformMetadatas(target, propertyName, PLAIN_TO_CLASS).filter((meta) => !meta.options?.groups?.length);
}

/** True when `@Expose`/`@Exclude` (on the class, a property or an ancestor) changes which keys plainToInstance copies. */
export function hasExposeOrExclude(target: Function): boolean {
  return (
    storage.getStrategy(target) !== 'none' ||
    storage.getExposedMetadatas(target).length > 0 ||
    storage.getExcludedMetadatas(target).length > 0
  );
}
