import { RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/server';
import type { AppResourceOptions } from '../metadata/metadata-args.js';
import { handlerMethod } from './handler-method.js';

/**
 * Declares a method as the reader of an MCP App: the HTML a host renders in a sandboxed frame for
 * the tools whose `@Tool({ ui: { resource } })` names this `ui://` URI. It is a resource with the
 * extension's MIME type (`text/html;profile=mcp-app`); `csp`, `permissions`, `domain` and
 * `prefersBorder` are advertised as its `_meta.ui`, in `resources/list` and on what `resources/read`
 * returns. The method returns the HTML (a string). See docs/mcp-apps.md.
 *
 * @example
 * ```ts
 * @AppResource({ uri: 'ui://counter/view.html', name: 'counter-view', csp: { connectDomains: [] } })
 * view() { return readFile(new URL('./view.html', import.meta.url), 'utf8'); }
 * ```
 */
export function AppResource(options: AppResourceOptions): MethodDecorator {
  const { csp, permissions, domain, prefersBorder, ...resource } = options;
  return handlerMethod('resource', { ...resource, mimeType: RESOURCE_MIME_TYPE, ui: { csp, permissions, domain, prefersBorder } });
}
