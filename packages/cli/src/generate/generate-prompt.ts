import { camelCase, kebabCase, pascalCase, sentenceCase } from '../util/names.js';
import { importPath, listTypeScriptFiles, type Project } from '../util/project.js';
import { addClassMember, classHasMember, ensureNamedImports } from '../util/source-edit.js';
import { tsLiteral } from '../util/ts-literal.js';
import type { Ui } from '../util/ui.js';
import { boundaryAccepts, formatFields, invalidCases, missingCase, validArguments } from './field-spec.js';
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
import { importLine, renderCaseRows, renderDto, testingAppSuite } from './render.js';

const DEFAULT_ARGS = 'text:string:1..10000';

/** `armature generate prompt <name>`: an arguments DTO, a `@Prompt` method in a server, and its test. */
export async function planPrompt(project: Project, name: string, options: GenerateOptions, ui: Ui): Promise<GeneratePlan> {
  const method = camelCase(name);
  const promptName = kebabCase(name).replace(/-/g, '_');
  if (!/^[A-Za-z]/.test(method)) throw new GenerateError(`"${name}" cannot name a prompt: start it with a letter`);
  const fields = fieldsOr(options.fields, DEFAULT_ARGS);
  if (fields.some((f) => f.type !== 'string' && f.type !== 'enum')) {
    throw new GenerateError('prompt arguments are strings in MCP: give each field the type string or enum');
  }
  const server = await resolveServer(project, options.server, ui, 'prompt');
  if (classHasMember(server.source, server.className, method)) {
    throw new GenerateError(`${server.className} already has a member called ${method} (${server.file}). Pick another name.`);
  }
  assertNameFree(
    project,
    listTypeScriptFiles(project.root),
    new RegExp(`name:\\s*['"]${promptName}['"]`),
    `a prompt (or tool) is already called "${promptName}"`,
  );

  const argsClass = `${pascalCase(name)}Args`;
  const argsFile = srcPath(server.dir, `dto/${kebabCase(name)}.args.ts`);
  const testFile = testPath(server.dir, `${kebabCase(name)}.prompt.test.ts`);
  const description = `${sentenceCase(name)}. TODO: say what the prompt is for.`;
  let serverSource = ensureNamedImports(server.source, '@armature/core', ['Prompt']);
  serverSource = ensureNamedImports(serverSource, importPath(server.file, argsFile), [argsClass]);
  serverSource = addClassMember(
    serverSource,
    server.className,
    `@Prompt({ name: '${promptName}', description: ${tsLiteral(description)} })
${method}(args: ${argsClass}): string {
  // TODO: write the prompt. A string becomes one user message; return messages for more.
  return \`${promptName} with \${JSON.stringify(args)}\`;
}`,
  );

  const valid = validArguments(fields) as Record<string, string>;
  const accepts = boundaryAccepts(fields);
  const acceptBlock =
    accepts.length === 0
      ? ''
      : `
  it.each([
${renderCaseRows(accepts, false)}
  ])('accepts %s', async (_what, args) => {
    await expect(t.getPrompt('${promptName}', args)).resolves.toHaveProperty('messages');
  });
`;
  const missing = missingCase(fields);
  const missingBlock = missing
    ? `
  it('refuses ${missing.what}', async () => {
    await expect(t.getPrompt('${promptName}', ${tsLiteral(missing.args)})).rejects.toMatchObject({
      code: -32602,
      message: expect.stringMatching(/^Invalid arguments for prompt "${promptName}":(\\n${missing.field}: [^\\n]+)+$/),
    });
  });
`
    : '';
  const test = `${testingAppSuite({
    testingNames: [],
    serverImport: importLine([server.className], importPath(testFile, server.file)),
    nestHelper: nestTestHelper(project, testFile),
    serverClass: server.className,
    preamble: `
// The cases come from the constraints of ${argsClass},
//   ${formatFields(fields)}
// each limit exactly, one step past it, a missing required argument and an unknown one. Change
// them with the DTO.
`,
    title: `prompt ${promptName}`,
  })}
  it('is listed with its arguments', async () => {
    const { prompts } = await t.client.listPrompts();
    const prompt = prompts.find((p) => p.name === '${promptName}');
    expect(prompt?.arguments?.map((a) => [a.name, a.required])).toEqual(${tsLiteral(fields.map((f) => [f.name, !f.optional]))});
  });

  it('writes the prompt', async () => {
    const result = await t.getPrompt('${promptName}', ${tsLiteral(valid)});
    expect(result.messages).toEqual([
      { role: 'user', content: { type: 'text', text: ${tsLiteral(`${promptName} with ${JSON.stringify(valid)}`)} } },
    ]);
  });
${acceptBlock}
  it.each([
${renderCaseRows(invalidCases(fields, { stringsOnly: true }), true)}
  ])('refuses %s', async (_what, args, lines) => {
    await expect(t.getPrompt('${promptName}', args as Record<string, string>)).rejects.toMatchObject({
      code: -32602,
      message: ['Invalid arguments for prompt "${promptName}":', ...lines].join('\\n'),
    });
  });
${missingBlock}});
`;
  return {
    files: [
      { path: argsFile, action: 'create', content: renderDto(argsClass, `Arguments of the \`${promptName}\` prompt.`, fields) },
      { path: server.file, action: 'update', content: serverSource, note: `adds ${server.className}.${method}` },
      { path: testFile, action: 'create', content: test },
    ],
    summary: `prompt "${promptName}" in ${server.className}`,
    next: `Describe ${promptName} in its @Prompt description, then write the prompt in ${server.className}.${method}.`,
  };
}
