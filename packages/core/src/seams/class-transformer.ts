// class-transformer keeps `@Type`, `@Transform`, `@Expose` and `@Exclude` records in a storage it does
// not export from its index. Importing the CommonJS file from the same package copy as the
// decorators keeps one storage (TOOLCHAIN trap 6; `armature build` points both at the ES build).
// Before it is used, the storage is checked: each method there, and a probe `@Type` found again.
// When not, Armature says so once and does without it: nested DTO types are not read from `@Type`
// and the compiled DTO checks are off (class-transformer and class-validator run themselves).
import { Type } from 'class-transformer';
// @ts-expect-error: the file ships without type declarations
import * as storageModule from 'class-transformer/cjs/storage.js';
import { seamMessages } from '../messages/seam-messages.js';

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

const METHODS = ['findTypeMetadata', 'findTransformMetadatas', 'getStrategy', 'getExposedMetadatas', 'getExcludedMetadatas'] as const;

let checked: TransformerStorage | null | undefined;

/** class-transformer's storage once checked, or undefined (said once on stderr) when it is not as expected. */
function storageOf(): TransformerStorage | undefined {
  if (checked === undefined) {
    const found = ((storageModule as { defaultMetadataStorage?: unknown }).defaultMetadataStorage ??
      (storageModule as { default?: { defaultMetadataStorage?: unknown } }).default?.defaultMetadataStorage) as
      | Record<string, unknown>
      | undefined;
    const problem = problemOf(found);
    if (problem) process.stderr.write(seamMessages.classTransformerOff(problem));
    checked = problem ? null : (found as unknown as TransformerStorage);
  }
  return checked ?? undefined;
}

function problemOf(found: Record<string, unknown> | undefined): string | undefined {
  if (!found) return 'class-transformer/cjs/storage.js has no defaultMetadataStorage';
  const missing = METHODS.filter((method) => typeof found[method] !== 'function');
  if (missing.length > 0) return `its storage has no ${missing.join(', ')}`;
  class Probe {}
  class Probed {
    probe?: Probe;
  }
  Type(() => Probe)(Probed.prototype, 'probe');
  const meta = (found as unknown as TransformerStorage).findTypeMetadata(Probed, 'probe');
  return meta?.typeFunction() === Probe ? undefined : 'a @Type record is not found in its storage';
}

/** Whether class-transformer's storage can be read (the compiled DTO checks need it). */
export function transformerStorageReadable(): boolean {
  return storageOf() !== undefined;
}

/** class-transformer's TransformationType.PLAIN_TO_CLASS. */
export const PLAIN_TO_CLASS = 0;

/** The class named by `@Type(() => X)` on `target.propertyName`, if any. */
export function findDeclaredType(target: Function, propertyName: string): unknown {
  const meta = storageOf()?.findTypeMetadata(target, propertyName);
  return meta ? meta.typeFunction() : undefined;
}

/** The `@Type` record of `target.propertyName` (own or inherited), if any. */
export function findTypeMetadata(target: Function, propertyName: string): TypeMetadata | undefined {
  return storageOf()?.findTypeMetadata(target, propertyName);
}

/**
 * The `@Transform` functions plainToInstance applies to `target.propertyName`, in its order, with
 * the filter it applies when no `groups` option is given (a transform restricted to groups never runs).
 */
export function transformsToClass(target: Function | undefined, propertyName: string): TransformMetadata[] {
  return (storageOf()?.findTransformMetadatas(target, propertyName, PLAIN_TO_CLASS) ?? []).filter((meta) => !meta.options?.groups?.length);
}

/** True when `@Expose`/`@Exclude` (on the class, a property or an ancestor) changes which keys plainToInstance copies. */
export function hasExposeOrExclude(target: Function): boolean {
  const storage = storageOf();
  if (!storage) return false;
  return (
    storage.getStrategy(target) !== 'none' ||
    storage.getExposedMetadatas(target).length > 0 ||
    storage.getExcludedMetadatas(target).length > 0
  );
}
