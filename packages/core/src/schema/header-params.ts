/** The schema keyword naming the HTTP header that mirrors a tool parameter (SEP-2243). */
export const HEADER_PARAM_KEYWORD = 'x-mcp-header';

/** A tool parameter mirrored in an `Mcp-Param-{name}` header on 2026-07-28 HTTP requests. */
export interface HeaderParam {
  /** The property names from the argument object's root down to the parameter. */
  readonly path: readonly string[];
  /** The header's name after `Mcp-Param-`, as declared. */
  readonly header: string;
  readonly type: 'string' | 'integer' | 'boolean';
}
