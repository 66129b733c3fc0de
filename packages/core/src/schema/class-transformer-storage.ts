// class-transformer keeps `@Type` records in a storage it does not export from its index. Importing
// the CommonJS file from the same package copy as the decorators keeps one storage (TOOLCHAIN trap 6).
// @ts-expect-error: the file ships without type declarations
import * as storageModule from 'class-transformer/cjs/storage.js';

interface TypeMetadata {
  typeFunction: (options?: unknown) => unknown;
  reflectedType: unknown;
}

interface TransformerStorage {
  findTypeMetadata(target: unknown, propertyName: string): TypeMetadata | undefined;
}

const storage = ((storageModule as { defaultMetadataStorage?: TransformerStorage }).defaultMetadataStorage ??
  (storageModule as { default: { defaultMetadataStorage: TransformerStorage } }).default.defaultMetadataStorage) as TransformerStorage;

/** The class named by `@Type(() => X)` on `target.propertyName`, if any. */
export function findDeclaredType(target: Function, propertyName: string): unknown {
  const meta = storage.findTypeMetadata(target, propertyName);
  return meta ? meta.typeFunction() : undefined;
}
