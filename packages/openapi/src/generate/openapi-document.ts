import SwaggerParser from '@apidevtools/swagger-parser';

/** The parts of an OpenAPI 3.x document the generator reads; the parser has checked the rest. */
export interface OpenApiDocument {
  readonly openapi: string;
  readonly info: { readonly title: string; readonly version: string; readonly description?: string };
  readonly servers?: ReadonlyArray<{ readonly url: string }>;
  readonly paths?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  readonly components?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  readonly security?: ReadonlyArray<Readonly<Record<string, unknown>>>;
}

export class OpenApiDocumentError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OpenApiDocumentError';
  }
}

/**
 * Reads an OpenAPI 3.0 or 3.1 document from a file or an http(s) URL (JSON or YAML), with its
 * external `$ref`s bundled in, and validates it against the OpenAPI schema. Internal `$ref`s are
 * kept: a `#/components/schemas/Pet` becomes one `Pet` DTO class rather than a copy per use.
 */
export async function loadOpenApiDocument(source: string): Promise<OpenApiDocument> {
  let bundled: OpenApiDocument;
  try {
    // The parser refuses internal addresses (localhost, private networks) by default, against
    // $refs that reach into a network. A document URL given on the command line is the user's
    // choice, often a local dev server's /openapi.json: its host is allowed. A file's $refs keep
    // the default.
    const remote = /^https?:\/\//i.test(source);
    bundled = (await SwaggerParser.bundle(source, { resolve: { http: { safeUrlResolver: !remote } } })) as unknown as OpenApiDocument;
    // validate() dereferences what it is given: keep the bundled document's $refs intact.
    await SwaggerParser.validate(structuredClone(bundled) as never);
  } catch (error) {
    throw new OpenApiDocumentError(`${source} is not a valid OpenAPI document: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!/^3\.[01]\./.test(String(bundled.openapi ?? ''))) {
    throw new OpenApiDocumentError(
      `${source} is not OpenAPI 3.0 or 3.1 (found ${'swagger' in bundled ? `Swagger ${String((bundled as { swagger?: unknown }).swagger)}` : 'no openapi field'}). Convert it to OpenAPI 3 first (for example with swagger2openapi).`,
    );
  }
  return bundled;
}

/** Follows local `$ref`s (`#/components/...`) to the object they name. */
export function resolveRef<T>(document: OpenApiDocument, value: T): T {
  let current: unknown = value;
  for (let hops = 0; hops < 32 && isRef(current); hops++) {
    const pointer = current.$ref;
    if (!pointer.startsWith('#/'))
      throw new OpenApiDocumentError(`cannot follow the $ref ${pointer}: only local references are read after bundling`);
    current = pointer
      .slice(2)
      .split('/')
      .map((part) => decodeURIComponent(part).replaceAll('~1', '/').replaceAll('~0', '~'))
      .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], document);
    if (current === undefined) throw new OpenApiDocumentError(`the $ref ${pointer} points at nothing`);
  }
  return current as T;
}

function isRef(value: unknown): value is { $ref: string } {
  return typeof value === 'object' && value !== null && typeof (value as { $ref?: unknown }).$ref === 'string';
}
