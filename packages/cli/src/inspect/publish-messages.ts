/**
 * Every text `armature inspect --check` and `--snapshot` print, in one place. A change reads
 * `<subject>: <what changed>`, e.g. `tool get_forecast: argument days is now required`.
 */

const show = (value: unknown) => (value === undefined ? 'none' : JSON.stringify(value));
const list = (values: readonly unknown[]) => values.map((v) => JSON.stringify(v)).join(', ');

export const CONTRACT_TEXT = {
  subject: {
    tool: (name: string) => `tool ${name}`,
    prompt: (name: string) => `prompt ${name}`,
    resource: (uri: string) => `resource ${uri}`,
    resourceTemplate: (uri: string) => `resource template ${uri}`,
  },
  /** Where in a schema: `argument days`, `output field forecast[].tempC`, `input`, `output`. */
  where: (side: 'input' | 'output', path: string) => (path === '' ? side : side === 'input' ? `argument ${path}` : `output field ${path}`),

  removed: 'removed',
  added: 'new',
  argumentNowRequired: (path: string) => `argument ${path} is now required`,
  argumentNowOptional: (path: string) => `argument ${path} is now optional`,
  argumentAddedRequired: (path: string) => `new required argument ${path}`,
  argumentAddedOptional: (path: string) => `new optional argument ${path}`,
  argumentRemovedRefused: (path: string) => `argument ${path} removed (clients that still send it are refused)`,
  argumentRemovedIgnored: (path: string) => `argument ${path} removed (now ignored when sent)`,
  outputFieldRemoved: (path: string) => `output field ${path} removed`,
  outputFieldOptional: (path: string) => `output field ${path} is no longer always present`,
  outputFieldAlwaysPresent: (path: string) => `output field ${path} is now always present`,
  outputFieldAdded: (path: string) => `new output field ${path}`,
  outputSchemaRemoved: 'output schema removed (structured output is no longer promised)',
  outputSchemaAdded: 'new output schema',
  typeNarrowed: (where: string, from: unknown, to: unknown) => `${where}: type narrowed from ${show(from)} to ${show(to)}`,
  typeWidened: (where: string, from: unknown, to: unknown) => `${where}: type widened from ${show(from)} to ${show(to)}`,
  boundNarrowed: (where: string, key: string, from: unknown, to: unknown) => `${where}: ${key} narrowed from ${show(from)} to ${show(to)}`,
  boundWidened: (where: string, key: string, from: unknown, to: unknown) => `${where}: ${key} widened from ${show(from)} to ${show(to)}`,
  constraintChanged: (where: string, key: string, from: unknown, to: unknown) =>
    `${where}: ${key} changed from ${show(from)} to ${show(to)}`,
  enumValuesRemoved: (where: string, values: readonly unknown[]) => `${where}: enum value(s) ${list(values)} removed`,
  enumValuesAdded: (where: string, values: readonly unknown[]) => `${where}: enum value(s) ${list(values)} added`,
  enumAdded: (where: string, values: readonly unknown[]) => `${where}: now limited to ${list(values)}`,
  enumDropped: (where: string) => `${where}: no longer limited to a list of values`,
  annotationChanged: (key: string, from: unknown, to: unknown) => `annotation ${key} changed from ${show(from)} to ${show(to)}`,
  promptArgumentNowRequired: (name: string) => `argument ${name} is now required`,
  promptArgumentAdded: (name: string, required: boolean) => `new ${required ? 'required' : 'optional'} argument ${name}`,
  promptArgumentRemoved: (name: string) => `argument ${name} removed`,

  /** The report of `--check`. */
  line: (severity: 'breaking' | 'compatible', subject: string, text: string) => `${severity.padEnd(10)}  ${subject}: ${text}`,
  summary: (file: string, breaking: number, compatible: number) =>
    breaking > 0
      ? `armature inspect --check ${file}: ${breaking} breaking change(s), ${compatible} compatible. A client built against ${file} may fail. If the break is intended, release it as a new major version and write the new contract with: armature inspect --snapshot ${file}`
      : compatible > 0
        ? `armature inspect --check ${file}: no breaking change, ${compatible} compatible change(s). Record them at the next release with: armature inspect --snapshot ${file}`
        : `armature inspect --check ${file}: the contract is unchanged`,
  snapshotWritten: (file: string, tools: number, prompts: number, resources: number) =>
    `armature inspect --snapshot: wrote ${file} (${tools} tool(s), ${prompts} prompt(s), ${resources} resource(s) and template(s)). Commit it; armature inspect --check ${file} then fails on a breaking change.`,
  snapshotMissing: (file: string) =>
    `${file} does not exist.\nFix: write the contract at a release with armature inspect --snapshot ${file} (or add --if-present to skip the check until there is one)`,
  snapshotSkipped: (file: string) =>
    `armature inspect --check ${file}: no snapshot yet, nothing to compare (write one at a release with armature inspect --snapshot ${file})`,
  snapshotUnreadable: (file: string, why: string) =>
    `${file} is not a contract snapshot (${why}).\nFix: write it again with armature inspect --snapshot ${file}`,
} as const;

/** Every text of `armature inspect --format server-json`. */
export const SERVER_JSON_TEXT = {
  noMcpName: (suggestion: string | undefined) =>
    'package.json has no "mcpName": the MCP registry names a server in reverse-DNS form (io.github.<user>/<server>) and checks that the npm package carries that name.\n' +
    `Fix: add "mcpName": "${suggestion ?? 'io.github.<your GitHub user>/<server name>'}" to package.json`,
  missing: (field: string) => `package.json has no "${field}", which server.json takes it from.\nFix: add "${field}" to package.json`,
  versionMismatch: (server: string, decorator: string, pkg: string) =>
    `@McpServer of ${server} says version ${decorator} but package.json says ${pkg}: the registry entry, the npm package and the server's serverInfo.version must agree.\n` +
    `Fix: set version: '${pkg}' in @McpServer (or read it from package.json)`,
  invalid: (problems: readonly string[]) =>
    `the server.json written from package.json and @McpServer does not match the registry's schema:\n${problems.map((p) => `  ${p}`).join('\n')}\n` +
    'Fix: correct the field in package.json (name, version, description, repository, homepage, mcpName) or @McpServer (title, icons)',
} as const;
