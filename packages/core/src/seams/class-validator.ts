// What the compiled DTO checks (validation/compile-dto.ts) take from class-validator beyond its
// public API: the token replacement its messages go through (`$property`, `$constraint1`, ...),
// which it does not export from its index, and the condition `@IsOptional` records, which the
// generated code writes out instead of calling. Both are checked before first use against what
// class-validator itself does; when either is not as expected, Armature says so once and the
// compiled checks are off (class-transformer and class-validator then run themselves).
import { getMetadataStorage, IsOptional } from 'class-validator';
// @ts-expect-error: the file ships without type declarations; the same token replacement class-validator uses
import * as validationUtilsModule from 'class-validator/cjs/validation/ValidationUtils.js';
import { seamMessages } from '../messages/seam-messages.js';

type ReplaceTokens = (message: unknown, args: unknown) => string;

interface Checked {
  readonly replaceTokens: ReplaceTokens;
  /** The source text of the condition `@IsOptional` records. */
  readonly optionalSource: string;
}

let checked: Checked | null | undefined;

function internals(): Checked | undefined {
  if (checked === undefined) {
    const utils = ((validationUtilsModule as { ValidationUtils?: unknown }).ValidationUtils ??
      (validationUtilsModule as { default?: { ValidationUtils?: unknown } }).default?.ValidationUtils) as
      | { replaceMessageSpecialTokens?: ReplaceTokens }
      | undefined;
    const replace = utils?.replaceMessageSpecialTokens;
    const optional = optionalCondition();
    let problem: string | undefined;
    if (typeof replace !== 'function') problem = 'ValidationUtils.replaceMessageSpecialTokens is missing';
    else if (
      replace.call(utils, '$property of $target must be $constraint1, not $value', {
        property: 'size',
        targetName: 'Probe',
        constraints: [[1, 2]],
        value: 3,
      }) !== 'size of Probe must be 1, 2, not 3'
    )
      problem = 'ValidationUtils.replaceMessageSpecialTokens replaces tokens differently';
    else if (!optional) problem = "@IsOptional's condition does not test for null and undefined";
    if (problem) process.stderr.write(seamMessages.classValidatorOff(problem));
    checked = problem
      ? null
      : { replaceTokens: (message, args) => (replace as ReplaceTokens).call(utils, message, args), optionalSource: optional as string };
  }
  return checked ?? undefined;
}

/**
 * The source text of the condition `@IsOptional` records, when it skips validation of exactly a
 * null or undefined property (what the generated code writes out), else undefined.
 */
function optionalCondition(): string | undefined {
  class Probe {
    probe?: unknown;
  }
  IsOptional()(Probe.prototype, 'probe');
  const storage = getMetadataStorage();
  const metas = storage.getTargetValidationMetadatas(Probe, '', false, false);
  const condition = metas.find((meta) => meta.propertyName === 'probe')?.constraints?.[0] as
    | ((object: object, value: unknown) => unknown)
    | undefined;
  if (typeof condition !== 'function') return undefined;
  const skips = (value: unknown) => !condition({ probe: value }, value);
  const behaves = skips(null) && skips(undefined) && !skips(0) && !skips('') && !skips(false);
  return behaves ? Function.prototype.toString.call(condition) : undefined;
}

/** Whether the compiled checks can use class-validator's internals. */
export function validatorInternalsReadable(): boolean {
  return internals() !== undefined;
}

/** class-validator's message token replacement (only called once `validatorInternalsReadable()`). */
export function replaceMessageTokens(message: unknown, args: unknown): string {
  return (internals() as Checked).replaceTokens(message, args);
}

/** True when `condition` is the one `@IsOptional` records (same source as the checked probe's). */
export function isOptionalCondition(condition: unknown): boolean {
  const source = internals()?.optionalSource;
  return typeof condition === 'function' && source !== undefined && Function.prototype.toString.call(condition) === source;
}

interface ValidationStore {
  validationMetadatas?: unknown;
  getTargetValidationMetadatas(target: Function, schema: string, always: boolean, strictGroups: boolean): object[];
}

let ownRecords: object | null | undefined;

/**
 * The prototype of the validation records the class-validator copy core imports makes, read from
 * a probe (`@IsOptional` adds one record, removed at once from its metadata map); null when that
 * map is not there as expected, and the single-copy check is then off.
 */
function ownRecordPrototype(): object | null {
  if (ownRecords === undefined) {
    const store = getMetadataStorage() as unknown as ValidationStore;
    const records = store.validationMetadatas;
    ownRecords = null;
    if (records instanceof Map) {
      class Probe {}
      IsOptional()(Probe.prototype, 'probe');
      const record = (records.get(Probe) as object[] | undefined)?.[0];
      records.delete(Probe);
      if (record) ownRecords = Object.getPrototypeOf(record) as object;
    }
    if (ownRecords === null) process.stderr.write(seamMessages.singleCopyCheckOff('its metadata map, validationMetadatas, is not there'));
  }
  return ownRecords;
}

/** True when `dto` was decorated by another copy of class-validator than the one core imports. */
export function decoratedByAnotherCopy(dto: Function): boolean {
  const own = ownRecordPrototype();
  if (!own) return false;
  return (getMetadataStorage() as unknown as ValidationStore)
    .getTargetValidationMetadatas(dto, '', true, false)
    .some((record) => Object.getPrototypeOf(record) !== own);
}
