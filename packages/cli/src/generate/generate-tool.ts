import { camelCase, kebabCase, pascalCase, sentenceCase, snakeCase } from '../util/names.js';
import { importPath, listTypeScriptFiles, type Project } from '../util/project.js';
import { addClassMember, classHasMember, ensureNamedImports } from '../util/source-edit.js';
import { tsLiteral } from '../util/ts-literal.js';
import type { Ui } from '../util/ui.js';
import { boundaryAccepts, type FieldSpec, formatFields, invalidCases, missingCase, sampleValue, validArguments } from './field-spec.js';
import {
  assertNameFree,
  fieldsOr,
  GenerateError,
  type GenerateOptions,
  type GeneratePlan,
  nestTestHelper,
  resolveServer,
  srcPath,
  testPath,
} from './generate-context.js';
import { resolveNestedDtos } from './read-dto-fields.js';
import { importLine, renderCaseRows, renderDto, testingAppSuite } from './render.js';

const DEFAULT_INPUT = 'text:string:1..200';
const DEFAULT_OUTPUT = 'result:string';

/**
 * What the generated method returns: the first string field says what it received (so the test
 * proves the validated input reached the method), the others their sample values.
 */
function resultOf(toolName: string, output: readonly FieldSpec[]): { code: string; expected: Record<string, unknown> } {
  const echo = output.find((field) => field.type === 'string' && field.min === undefined && field.max === undefined);
  const parts: string[] = [];
  const expected: Record<string, unknown> = {};
  for (const field of output) {
    if (field === echo) {
      parts.push(`${field.name}: \`${toolName} received \${JSON.stringify(input)}\``);
      continue;
    }
    parts.push(`${field.name}: ${tsLiteral(sampleValue(field))}`);
    expected[field.name] = sampleValue(field);
  }
  return { code: `{ ${parts.join(', ')} }`, expected };
}

/** `armature generate tool <name>`: input and output DTOs, the method in a server, and its test. */
export async function planTool(project: Project, name: string, options: GenerateOptions, ui: Ui): Promise<GeneratePlan> {
  const toolName = snakeCase(name);
  const method = camelCase(name);
  const kebab = kebabCase(name);
  if (!/^[A-Za-z]/.test(method)) throw new GenerateError(`"${name}" cannot name a tool: start it with a letter`);
  const inputClass = `${pascalCase(name)}Input`;
  const outputClass = `${pascalCase(name)}Output`;
  const inputSpec = fieldsOr(options.fields, DEFAULT_INPUT);
  const output = fieldsOr(options.output, DEFAULT_OUTPUT);
  if (output.some((field) => field.type === 'date' || field.type === 'dto')) {
    throw new GenerateError(
      '--output takes string, string[], int, number, boolean and enum fields (a Date or a nested DTO is written by hand)',
    );
  }
  if (output.some((field) => field.optional)) {
    throw new GenerateError('output fields cannot be optional here (the generated test checks each one); write them without "?"');
  }

  const server = await resolveServer(project, options.server, ui, 'tool');
  if (classHasMember(server.source, server.className, method)) {
    throw new GenerateError(`${server.className} already has a member called ${method} (${server.file}). Pick another tool name.`);
  }
  assertNameFree(
    project,
    listTypeScriptFiles(project.root),
    new RegExp(`name:\\s*['"]${toolName}['"]`),
    `a tool (or prompt) is already called "${toolName}"`,
  );

  const inputFile = srcPath(server.dir, `dto/${kebab}.input.ts`);
  const outputFile = srcPath(server.dir, `dto/${kebab}.output.ts`);
  const testFile = testPath(server.dir, `${kebab}.tool.test.ts`);
  const { fields: input, imports: nested } = resolveNestedDtos(project, inputSpec, inputFile);
  const result = resultOf(toolName, output);
  const echoField = output.find((field) => !(field.name in result.expected));
  const valid = validArguments(input);
  const expected = { ...result.expected };
  if (echoField) expected[echoField.name] = `${toolName} received ${JSON.stringify(valid)}`;
  const orderedExpected = Object.fromEntries(output.map((field) => [field.name, expected[field.name]]));

  const memberCode = `@Tool({
  name: '${toolName}',
  description: ${tsLiteral(`${sentenceCase(name)}. TODO: say what it does and when to use it.`)},
  annotations: { readOnlyHint: ${options.readOnly ? 'true' : 'false'} },
  output: () => ${outputClass},
})
async ${method}(input: ${inputClass}, ctx: Context): Promise<${outputClass}> {
  // TODO: do the work. \`input\` is validated; the result is checked against ${outputClass}.
  await ctx.log.debug('${toolName} called');
  return ${result.code};
}`;
  let serverSource = ensureNamedImports(server.source, '@armature/core', ['Context', 'Tool']);
  serverSource = ensureNamedImports(serverSource, importPath(server.file, inputFile), [inputClass]);
  serverSource = ensureNamedImports(serverSource, importPath(server.file, outputFile), [outputClass]);
  serverSource = addClassMember(serverSource, server.className, memberCode);

  const accepts = boundaryAccepts(input);
  const acceptBlock =
    accepts.length === 0
      ? ''
      : `
  it.each([
${renderCaseRows(accepts, false)}
  ])('accepts %s', async (_what, args) => {
    const result = await t.callTool('${toolName}', args);
    expect(textOf(result)).not.toContain('Invalid arguments');
    expect(result.isError).toBeFalsy();
  });
`;
  const missing = missingCase(input);
  const missingBlock = missing
    ? `
  it('rejects ${missing.what}', async () => {
    const result = await t.callTool('${toolName}', ${tsLiteral(missing.args)});
    expect(result.isError).toBe(true);
    const [heading, ...lines] = textOf(result).split('\\n');
    expect(heading).toBe('Invalid arguments for tool "${toolName}":');
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line).toMatch(/^${missing.field}: /);
  });
`
    : '';
  const test = `${testingAppSuite({
    testingNames: ['textOf'],
    serverImport: importLine([server.className], importPath(testFile, server.file)),
    nestHelper: nestTestHelper(project, testFile),
    serverClass: server.className,
    preamble: `
// ${toolName} through the MCP client. The cases come from the constraints of ${inputClass},
//   ${formatFields(input)}
// a valid call, each limit exactly, one step past it, a missing required field and an unknown
// field. Change them with the DTO.
`,
    title: toolName,
  })}
  it('answers a valid call', async () => {
    const result = await t.callTool('${toolName}', ${tsLiteral(valid)});
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual(${tsLiteral(orderedExpected)});
  });
${acceptBlock}
  it.each([
${renderCaseRows(invalidCases(input), true)}
  ])('rejects %s', async (_what, args, lines) => {
    const result = await t.callTool('${toolName}', args);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe(['Invalid arguments for tool "${toolName}":', ...lines].join('\\n'));
  });
${missingBlock}});
`;

  return {
    files: [
      { path: inputFile, action: 'create', content: renderDto(inputClass, `Arguments of the \`${toolName}\` tool.`, input, nested) },
      {
        path: outputFile,
        action: 'create',
        content: renderDto(outputClass, `Result of the \`${toolName}\` tool (its outputSchema).`, output),
      },
      { path: server.file, action: 'update', content: serverSource, note: `adds ${server.className}.${method}` },
      { path: testFile, action: 'create', content: test },
    ],
    summary: `tool "${toolName}" in ${server.className}`,
    next: `Describe what ${toolName} does in its @Tool description (the model reads it), then implement ${server.className}.${method}.`,
  };
}
