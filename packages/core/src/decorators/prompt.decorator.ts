import type { CompletionSource, Constructor, PromptOptions } from '../metadata/metadata-args.js';
import { getMetadataStorage } from '../metadata/metadata-storage.js';
import { handlerMethod } from './handler-method.js';

/**
 * Declares a method as a prompt. Its arguments come from a DTO: each property becomes a prompt
 * argument (with its `@Field` description; required unless `@IsOptional`). A string return value
 * becomes one user message; messages, content blocks and a full `GetPromptResult` are accepted too.
 *
 * @example
 * ```ts
 * class ReviewArgs { @Field('The code to review') @IsString() code!: string; }
 *
 * @Prompt({ description: 'Review a piece of code' })
 * review(args: ReviewArgs) { return `Please review this code:\n\n${args.code}`; }
 * ```
 */
export function Prompt(options: PromptOptions): MethodDecorator {
  return handlerMethod('prompt', options);
}

/**
 * Offers completion candidates for a prompt argument or a resource-template variable, declared on
 * the DTO property itself: a function, or the name of a method of the server class (resolved per
 * request through DI, so it can use injected services).
 *
 * @example
 * ```ts
 * class ForecastArgs {
 *   @Complete((value) => CITIES.filter((c) => c.startsWith(value)))
 *   @IsString() city!: string;
 *
 *   @Complete('suggestUnits') // calls WeatherServer.suggestUnits(value, context)
 *   @IsString() units!: string;
 * }
 * ```
 */
export function Complete(source: CompletionSource): PropertyDecorator {
  return (target, propertyKey) => {
    getMetadataStorage().collectCompletion({ target: target.constructor as Constructor, propertyName: String(propertyKey), source });
  };
}
