import type { ResourceOptions, ResourceTemplateOptions } from '../metadata/metadata-args.js';
import { handlerMethod } from './handler-method.js';

/**
 * Declares a method as the reader of a resource with a fixed URI. It may return a string (text),
 * bytes (`Uint8Array`, sent as a base64 `blob`), one contents object, an array of them, or a full
 * `ReadResourceResult`.
 *
 * @example
 * ```ts
 * @Resource({ uri: 'config://app', name: 'app-config', mimeType: 'application/json' })
 * config() { return JSON.stringify(this.settings.all()); }
 * ```
 */
export function Resource(options: ResourceOptions): MethodDecorator {
  return handlerMethod('resource', options);
}

/**
 * Declares a method as the reader of every resource matching an RFC 6570 URI template. The
 * template's variables arrive validated as the params DTO (first parameter).
 *
 * @example
 * ```ts
 * class UserParams { @IsNumberString() id!: string; }
 *
 * @ResourceTemplate({ uriTemplate: 'users://{id}/profile', name: 'user-profile', mimeType: 'application/json' })
 * profile(params: UserParams) { return JSON.stringify(this.users.find(params.id)); }
 * ```
 */
export function ResourceTemplate(options: ResourceTemplateOptions): MethodDecorator {
  return handlerMethod('resourceTemplate', options);
}
