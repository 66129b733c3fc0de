export { loadOpenApiDocument, type OpenApiDocument, OpenApiDocumentError } from './openapi-document.js';
export { GENERATED_HEADER, type RenderedFile, type RenderedTools, type RenderOptions, renderOpenApiTools } from './render-openapi-tools.js';
export type { OperationFilter, ToolModel } from './select-operations.js';
