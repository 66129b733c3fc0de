import type { Constructor, HandlerMetadataArgs } from '../metadata/metadata-args.js';
import { Context } from '../runtime/context.js';

const PRIMITIVE_TYPES = new Set<unknown>([String, Number, Boolean, Array, Symbol, BigInt]);
const UNREFLECTED = new Set<unknown>([Object, Function, undefined]);

export type Report = (message: string, fix: string) => void;

/**
 * The DTO class a handler method takes as its first parameter, from the `design:paramtypes`
 * recorded at decoration: `null` when the method takes none (no parameter, or only the Context),
 * `undefined` after reporting why it cannot be known. `option` names the decorator option that
 * names the DTO explicitly (`input`, `params`, `args`), for the fix.
 */
export function inferDtoParameter(args: HandlerMetadataArgs, option: string, report: Report): Constructor | null | undefined {
  const decorator = { tool: '@Tool', resource: '@Resource', resourceTemplate: '@ResourceTemplate', prompt: '@Prompt' }[args.kind];
  const first = args.paramTypes?.[0];
  if (args.paramTypes === undefined) {
    if (args.declaredParamCount === 0) return null;
    report(
      'no decorator metadata was emitted for this method, so its DTO parameter type is unknown (tsx and esbuild emit none)',
      `compile with tsc or vite-node and \`"emitDecoratorMetadata": true\`, or name the DTO: ${decorator}({ ${option}: () => MyDto, ... })`,
    );
    return undefined;
  }
  if (args.declaredParamCount === 0 || first === Context || args.paramTypes.length === 0) return null;
  if (UNREFLECTED.has(first)) {
    report(
      "the first parameter's type did not reflect (it is an interface, a type alias, or imported with `import type`)",
      `declare the DTO as a class and import it as a value (\`import { MyDto }\`, not \`import type\`), or ${decorator}({ ${option}: () => MyDto, ... }). If the parameter is the Context, import Context as a value too`,
    );
    return undefined;
  }
  if (PRIMITIVE_TYPES.has(first)) {
    report(
      `the first parameter is a ${(first as Function).name.toLowerCase()}, but arguments are an object`,
      'wrap the arguments in a DTO class: `class MyInput { @IsString() value!: string }` and take `(input: MyInput, ctx: Context)`',
    );
    return undefined;
  }
  return first as Constructor;
}

/** A DTO named explicitly by a decorator option (`input: () => Dto`), checked. */
export function explicitDto(thunk: unknown, option: string, report: Report): Constructor | undefined {
  const dto = typeof thunk === 'function' ? (thunk as () => unknown)() : undefined;
  if (typeof dto !== 'function') {
    report(`\`${option}\` must be a function returning the DTO class`, `${option}: () => MyDto`);
    return undefined;
  }
  return dto as Constructor;
}
