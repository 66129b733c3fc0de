import { camelCase, kebabCase, pascalCase, sentenceCase } from '../util/names.js';
import { importPath, listTypeScriptFiles, type Project } from '../util/project.js';
import { addClassMember, classHasMember, ensureNamedImports } from '../util/source-edit.js';
import { tsLiteral } from '../util/ts-literal.js';
import type { Ui } from '../util/ui.js';
import { type FieldSpec, formatFields, parseFields, sampleValue } from './field-spec.js';
import {
  assertNameFree,
  GenerateError,
  type GenerateOptions,
  type GeneratePlan,
  nestTestHelper,
  resolveServer,
  srcPath,
  testPath,
} from './generate-context.js';
import { importLine, renderCaseRows, renderDto, testingAppSuite } from './render.js';

const VARIABLE = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** A URI for the template with each variable replaced by its value. */
function expand(template: string, values: Record<string, unknown>): string {
  return template.replace(VARIABLE, (_all, name: string) => encodeURIComponent(String(values[name])));
}

function uriCases(fields: readonly FieldSpec[]) {
  const valid = Object.fromEntries(fields.map((f) => [f.name, sampleValue(f)]));
  const cases: Array<{ what: string; args: Record<string, unknown>; lines: string[] }> = [];
  for (const field of fields) {
    const at = (value: unknown, what: string, message: string) =>
      cases.push({ what, args: { ...valid, [field.name]: value }, lines: [`${field.name}: ${message}`] });
    // An empty variable does not match the template at all, so only limits above zero are tested.
    if (field.type === 'string' && field.min !== undefined && field.min > 1) {
      at(
        'x'.repeat(field.min - 1),
        `${field.name} shorter than ${field.min} characters`,
        `must be longer than or equal to ${field.min} characters`,
      );
    }
    if (field.type === 'string' && field.max !== undefined) {
      at(
        'x'.repeat(field.max + 1),
        `${field.name} longer than ${field.max} characters`,
        `must be shorter than or equal to ${field.max} characters`,
      );
    }
    if (field.type === 'enum') {
      at('not-a-choice', `${field.name} not one of its values`, `must be one of the following values: ${(field.values ?? []).join(', ')}`);
    }
  }
  return { valid, cases };
}

/**
 * `armature generate resource <name>`: a `@Resource` method (or `@ResourceTemplate` when `--uri` has
 * `{variables}`, with a params DTO) in a server, and its test.
 */
export async function planResource(project: Project, name: string, options: GenerateOptions, ui: Ui): Promise<GeneratePlan> {
  const method = camelCase(name);
  const resourceName = kebabCase(name);
  if (!/^[A-Za-z]/.test(method)) throw new GenerateError(`"${name}" cannot name a resource: start it with a letter`);
  const server = await resolveServer(project, options.server, ui, 'resource');
  if (classHasMember(server.source, server.className, method)) {
    throw new GenerateError(`${server.className} already has a member called ${method} (${server.file}). Pick another name.`);
  }
  const scheme = kebabCase(server.className.replace(/Server$/, '')) || 'app';
  const uri = options.uri ?? `${scheme}://${resourceName}`;
  if (!/^[A-Za-z][A-Za-z0-9+.-]*:/.test(uri))
    throw new GenerateError(`"${uri}" is not a URI: it needs a scheme, e.g. ${scheme}://${resourceName}`);
  const variables = [...uri.matchAll(VARIABLE)].map((m) => m[1] as string);
  const template = variables.length > 0;
  assertNameFree(
    project,
    listTypeScriptFiles(project.root),
    new RegExp(`${template ? 'uriTemplate' : 'uri'}:\\s*['"]${uri.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}['"]`),
    `a resource already has the URI ${uri}`,
  );

  const testFile = testPath(server.dir, `${resourceName}.resource.test.ts`);
  const files: GeneratePlan['files'] = [];
  let serverSource = ensureNamedImports(server.source, '@armature/core', [template ? 'ResourceTemplate' : 'Resource']);
  let member: string;
  let readUri: string;
  let expectedText: string;
  let invalid = '';
  let helper = '';

  if (!template) {
    if (options.fields) throw new GenerateError('--fields describes template variables; a fixed URI has none (add {variables} to --uri)');
    member = `@Resource({
  uri: ${tsLiteral(uri)},
  name: ${tsLiteral(resourceName)},
  description: ${tsLiteral(`${sentenceCase(name)}. TODO: say what it holds.`)},
  mimeType: 'application/json',
})
${method}(): string {
  // TODO: return the contents: a string, bytes (Uint8Array) or contents objects.
  return JSON.stringify({ resource: ${tsLiteral(resourceName)} });
}`;
    readUri = uri;
    expectedText = JSON.stringify({ resource: resourceName });
  } else {
    const given = parseFields(options.fields ?? variables.map((v) => `${v}:string:1..100`).join(', '));
    const names = given.map((f) => f.name);
    if ([...names].sort().join() !== [...variables].sort().join()) {
      throw new GenerateError(
        `--fields must describe exactly the template variables (${variables.join(', ')}); it names ${names.join(', ')}`,
      );
    }
    // In the template's order: the order the variables reach the params DTO.
    const fields = variables.map((v) => given.find((f) => f.name === v) as FieldSpec);
    if (fields.some((f) => f.type !== 'string' && f.type !== 'enum')) {
      throw new GenerateError('template variables arrive as strings: give them the type string or enum');
    }
    if (fields.some((f) => f.optional)) throw new GenerateError('template variables are part of the URI, so none can be optional');
    const paramsClass = `${pascalCase(name)}Params`;
    const paramsFile = srcPath(server.dir, `dto/${resourceName}.params.ts`);
    files.push({ path: paramsFile, action: 'create', content: renderDto(paramsClass, `Variables of the \`${uri}\` template.`, fields) });
    serverSource = ensureNamedImports(serverSource, importPath(server.file, paramsFile), [paramsClass]);
    member = `@ResourceTemplate({
  uriTemplate: ${tsLiteral(uri)},
  name: ${tsLiteral(resourceName)},
  description: ${tsLiteral(`${sentenceCase(name)}. TODO: say what it holds.`)},
  mimeType: 'application/json',
})
${method}(params: ${paramsClass}): string {
  // TODO: return the contents for these (validated) variables.
  return JSON.stringify({ resource: ${tsLiteral(resourceName)}, params });
}`;
    const { valid, cases } = uriCases(fields);
    readUri = expand(uri, valid);
    expectedText = JSON.stringify({ resource: resourceName, params: valid });
    if (cases.length > 0) {
      helper = `
/** A URI of the template with these variables. */
function uriOf(variables: Record<string, string>): string {
  return ${tsLiteral(uri)}.replace(/\\{(\\w+)\\}/g, (_all, name: string) => encodeURIComponent(variables[name] ?? ''));
}
`;
      invalid = `
  // From the constraints of ${paramsClass}: ${formatFields(fields)}.
  it.each([
${renderCaseRows(cases, true)}
  ])('refuses %s', async (_what, variables, lines) => {
    await expect(t.readResource(uriOf(variables))).rejects.toMatchObject({
      code: -32602,
      message: ['Invalid arguments for resource template "${resourceName}":', ...lines].join('\\n'),
    });
  });
`;
    }
  }
  serverSource = addClassMember(serverSource, server.className, member);
  files.push({ path: server.file, action: 'update', content: serverSource, note: `adds ${server.className}.${method}` });

  const listed = template ? 'listResourceTemplates' : 'listResources';
  const key = template ? 'resourceTemplates' : 'resources';
  const descriptor = template ? `uriTemplate: ${tsLiteral(uri)}` : `uri: ${tsLiteral(uri)}`;
  files.push({
    path: testFile,
    action: 'create',
    content: `${testingAppSuite({
      testingNames: [],
      serverImport: importLine([server.className], importPath(testFile, server.file)),
      nestHelper: nestTestHelper(project, testFile),
      serverClass: server.className,
      preamble: `${helper}\n`,
      title: `resource ${resourceName}`,
    })}
  it('is listed', async () => {
    const { ${key} } = await t.client.${listed}();
    expect(${key}).toContainEqual(expect.objectContaining({ ${descriptor}, name: ${tsLiteral(resourceName)} }));
  });

  it('reads', async () => {
    const result = await t.readResource(${tsLiteral(readUri)});
    expect(result.contents).toEqual([
      { uri: ${tsLiteral(readUri)}, mimeType: 'application/json', text: ${tsLiteral(expectedText)} },
    ]);
  });
${invalid}
  it('refuses a URI it does not serve', async () => {
    await expect(t.readResource(${tsLiteral(`${scheme}://no-such-${resourceName}/x`)})).rejects.toMatchObject({ code: -32602 });
  });
});
`,
  });
  return {
    files,
    summary: `${template ? 'resource template' : 'resource'} ${uri} in ${server.className}`,
    next: `Say what ${resourceName} holds in its description, then implement ${server.className}.${method}.`,
  };
}
