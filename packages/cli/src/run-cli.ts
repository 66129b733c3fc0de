import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { startConsole } from '@armature/console';
import { buildApp } from './build/bundle-app.js';
import { CreateError, createProject } from './create/create-project.js';
import { TEMPLATES, type Template, type Transport } from './create/project-files.js';
import { RUNTIMES, type Runtime } from './create/runtime-commands.js';
import { startDev } from './dev/dev.js';
import { FieldSpecError } from './generate/field-spec.js';
import { generate } from './generate/generate.js';
import { GENERATE_KINDS, GenerateError } from './generate/generate-context.js';
import { checkContract, readContractSnapshot, skippedCheck, writeContractSnapshot } from './inspect/contract-file.js';
import { findUndecoratedProperties } from './inspect/find-undecorated-properties.js';
import { INSPECT_FORMATS, type InspectFormat } from './inspect/format-catalogue.js';
import { inspectProject } from './inspect/inspect.js';
import { RULES } from './inspect/lint-catalogue.js';
import { InspectError, loadCatalogue } from './inspect/load-catalogue.js';
import { missingDecoratorSettings } from './util/decorator-settings.js';
import { PlanConflictError } from './util/file-plan.js';
import { PACKAGE_MANAGERS, type PackageManager } from './util/package-manager.js';
import { findProject, ProjectError } from './util/project.js';
import { SourceEditError } from './util/source-edit.js';
import { CancelledError, defaultUi, type Ui } from './util/ui.js';
import { ViteNodeMissingError } from './util/vite-node.js';

const VERSION = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

const HELP = `armature ${VERSION}: scaffold, grow, inspect and run Armature MCP servers

Usage
  armature new <name> [options]             a new project (same as npm create armature@latest)
  armature generate <kind> <name> [options] add code and its test; kinds: ${GENERATE_KINDS.join(', ')}
  armature generate openapi <file-or-url>   tools calling a REST API, from its OpenAPI 3.0/3.1 document
  armature inspect [entry] [options]        print and lint the tools, resources and prompts
  armature dev [entry] [options] [-- args]  run the server with vite-node, restarting on changes
  armature check [folder]                   find DTO properties with no decorator (default src), without running them
  armature build [entry] [options]          bundle the compiled server into one file that starts faster

new
  --template default|nestjs  nestjs: a Nest app, REST and MCP on Nest's HTTP port (default: default)
  --transport stdio|http     how clients connect (default stdio; the nestjs template is http)
  --runtime <runtime>        what runs the server: node (default); bun or deno, running src/ as it is;
                             workers, a Cloudflare Worker (Streamable HTTP, 2026-07-28 only)
  --pm npm|pnpm|yarn|bun     package manager (default: the one running this)
  --no-install               write the files only
  --dir <path>               folder to create (default: the name without its scope)
  -y, --yes                  take the defaults, ask nothing

generate
  --server <name>            the @McpServer class for a tool, resource or prompt (or a DTO's folder);
                             openapi: the name of the server it writes (default: short, from its title)
  --fields "<list>"          input DTO / prompt arguments / template variables, e.g.
                             "city:string:1..64, days?:int:1..14, units?:enum:metric|imperial, raw?:boolean"
                             types: string (range = length), string[] (range = items), int, number
                             (range = value), boolean, date (an RFC 3339 date-time, a Date in the DTO),
                             enum (a|b|c, or enum:a|b|c), a DTO class (Address, Address[])
  --output "<list>"          fields of a tool's output DTO (default "result:string")
  --read-only                the tool changes nothing (readOnlyHint: true; default false)
  --uri <uri>                a resource's URI; {variables} make it a resource template
  --tags <a,b>               openapi: only the operations with one of these tags
  --operations <id,id>       openapi: only these operationIds (with --tags: those too)
  --no-format                do not run the project's Biome on the written files

inspect
  entry                      module exporting createApp(), servers, or the classes (default src/app.ts)
  --format text|json|markdown|server-json|server-card
                             server-json: the MCP registry's server.json, from package.json (mcpName, name,
                             version, description, repository, homepage) and @McpServer (title, icons),
                             checked against the registry's schema; e.g. armature inspect --format server-json > server.json
                             server-card: the server card of SEP-2127 (draft), from the same fields; what
                             listenHttp({ serverCard }) serves at <endpoint>/server-card
  --url <url>                server-card: the endpoint's public URL, written as the card's remotes entry
  --strict                   exit 1 when the lint finds anything (for CI)
  --rules                    list the lint rules
  --snapshot <file>          write the tool contract (schemas, annotations, prompts, resources) as sorted JSON;
                             run it at a release and commit the file
  --check <file>             compare the contract with <file>: exit 1 on a breaking change (a removed tool,
                             a new required argument, a narrowed type, bound, pattern or enum, a removed or
                             no longer always present output field); compatible changes are printed
  --if-present               with --check: skip (exit 0) when <file> does not exist yet
  --ui                       serve the app (e.g. a built dist/app.js) under the console, not restarted (see dev --ui)

dev
  entry                      module that starts the server (default src/main.ts)
  --watch <path>             what to watch (repeatable; default src, tsconfig.json, package.json, .env)
  -- <args>                  arguments for the entry (its process.argv.slice(2)), e.g. armature dev src/main.ts -- --http
  --ui                       a console in the browser on 127.0.0.1 (URL with a token printed): browse, call and
                             watch the app that entry exports (default src/app.ts) over Streamable HTTP

build
  entry                      the compiled module that starts the server (default dist/main.js; run npm run build first)
  --out <dir>                where the bundle goes (default dist/bundle); run it with node <dir>/<entry name>.mjs
  --external <package>       leave a package out of the bundle, imported from node_modules at run time (repeatable)
  --target node|workers      workers: one module for Cloudflare Workers from dist/worker.js (export default serveOnWorkers(...)) to dist/worker

Every command that writes
  --dry-run                  print the plan, write nothing
  --force                    overwrite existing files (otherwise nothing is overwritten)
`;

const CREATE_HELP = `create-armature ${VERSION}: a new Armature MCP server project, with a tool, its DTOs and tests

Usage
  npm create armature@latest <name> [-- options]
  pnpm create armature <name> [options]
  create-armature <name> [options]           (also: armature new <name> [options])

Options
  --template default|nestjs  nestjs: a Nest app, REST and MCP on Nest's HTTP port (default: default)
  --transport stdio|http     how clients connect (default stdio; the nestjs template is http)
  --runtime <runtime>        what runs the server: node (default); bun or deno, running src/ as it is;
                             workers, a Cloudflare Worker (Streamable HTTP, 2026-07-28 only)
  --pm npm|pnpm|yarn|bun     package manager (default: the one running this)
  --no-install               write the files only
  --dir <path>               folder to create (default: the name without its scope)
  -y, --yes                  take the defaults, ask nothing
  --dry-run                  print the plan, write nothing
  --force                    overwrite existing files (otherwise nothing is overwritten)
  -h, --help                 this help
`;

const INSPECT_USAGE =
  'usage: armature inspect [entry] [--format text|json|markdown|server-json|server-card [--url <url>]] [--strict] | [entry] --snapshot <file> | [entry] --check <file> [--if-present]';

/** What a run printed and how it ended; `main` turns it into the process's output and exit code. */
export interface CliIo {
  ui?: Ui;
  cwd?: string;
  stdout?: (text: string) => void;
  stderr?: (text: string) => void;
  /** The Node version `new`/`create` checks a template against. Default: this process's. */
  nodeVersion?: string;
}

function oneOf<T extends string>(value: string | undefined, allowed: readonly T[], flag: string): T | undefined {
  if (value === undefined) return undefined;
  if (!allowed.includes(value as T)) throw new UsageError(`${flag} must be one of ${allowed.join(', ')} (got "${value}")`);
  return value as T;
}

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

const EXPECTED = [
  UsageError,
  CreateError,
  GenerateError,
  FieldSpecError,
  PlanConflictError,
  ProjectError,
  SourceEditError,
  InspectError,
  ViteNodeMissingError,
  CancelledError,
];

/** `armature new ...` and `create-armature ...`. */
export async function runCreate(argv: readonly string[], io: CliIo = {}): Promise<number> {
  return guard(io, async (ui) => {
    const { values, positionals } = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: {
        transport: { type: 'string' },
        template: { type: 'string' },
        runtime: { type: 'string' },
        pm: { type: 'string' },
        install: { type: 'boolean' },
        'no-install': { type: 'boolean' },
        dir: { type: 'string' },
        yes: { type: 'boolean', short: 'y' },
        force: { type: 'boolean' },
        'dry-run': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
    if (values.help) {
      (io.stdout ?? print)(CREATE_HELP);
      return 0;
    }
    if (positionals.length > 1) throw new UsageError(`one project name is expected, got ${positionals.join(' ')}`);
    const created = await createProject(
      {
        name: positionals[0],
        directory: values.dir,
        transport: oneOf<Transport>(values.transport, ['stdio', 'http'], '--transport'),
        template: oneOf<Template>(values.template, TEMPLATES, '--template'),
        runtime: oneOf<Runtime>(values.runtime, RUNTIMES, '--runtime'),
        packageManager: oneOf<PackageManager>(values.pm, PACKAGE_MANAGERS, '--pm'),
        install: values['no-install'] ? false : values.install,
        yes: values.yes,
        force: values.force,
        dryRun: values['dry-run'],
        cwd: io.cwd,
        nodeVersion: io.nodeVersion,
      },
      ui,
    );
    // The project is written either way; a failed install still fails the command for scripts.
    return created.installFailed ? 1 : 0;
  });
}

function print(text: string): void {
  process.stdout.write(text);
}

async function guard(io: CliIo, work: (ui: Ui) => Promise<number>): Promise<number> {
  const ui = io.ui ?? defaultUi();
  try {
    return await work(ui);
  } catch (error) {
    if (
      error instanceof Error &&
      (EXPECTED.some((type) => error instanceof type) || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS'))
    ) {
      ui.error(error.message);
      return error instanceof CancelledError ? 130 : 1;
    }
    throw error;
  }
}

function parseDevArgs(args: readonly string[]) {
  try {
    return parseArgs({
      args: [...args],
      allowPositionals: true,
      options: { watch: { type: 'string', multiple: true }, ui: { type: 'boolean' } },
    });
  } catch (error) {
    const unknown = /Unknown option '([^']+)'/.exec((error as Error).message)?.[1];
    if (!unknown) throw error;
    const at = args.findIndex((arg) => arg === unknown || arg.startsWith(`${unknown}=`));
    const ownArgs = args.slice(0, at).some((arg) => !arg.startsWith('-')) ? args.slice(0, at) : [...args.slice(0, at), 'src/main.ts'];
    throw new UsageError(
      `armature dev has no option ${unknown}. Arguments for your entry go after --:\n  armature dev ${[...ownArgs, '--', ...args.slice(at)].join(' ')}`,
    );
  }
}

/**
 * `dev --ui` and `inspect --ui`: the console's page, and the app of `entry` (default src/app.ts)
 * served under it; `dev` restarts it on changes, `inspect` (`watch` empty) serves it as it is.
 */
async function serveConsole(positionals: readonly string[], watch: string[] | undefined, io: CliIo): Promise<number> {
  if (positionals.length > 1) throw new UsageError('usage: armature dev|inspect [entry] --ui');
  const entry = positionals[0] ?? 'src/app.ts';
  const root = findProject(io.cwd ?? process.cwd()).root;
  if (!existsSync(resolve(root, entry))) {
    throw new UsageError(
      `${entry} does not exist. Fix: armature dev --ui <the module that exports the app: createApp(), an app, servers, or the @McpServer classes>`,
    );
  }
  const ui = await startConsole();
  try {
    const session = startDev({ entry, watch, cwd: io.cwd, ui });
    (io.stderr ?? ((text: string) => process.stderr.write(text)))(`[armature] console: ${ui.url}\n`);
    await session.closed;
  } catch (error) {
    await ui.close();
    throw error;
  }
  return 0;
}

/** The `armature` command. Returns the exit code. */
export async function runCli(argv: readonly string[], io: CliIo = {}): Promise<number> {
  const [command, ...rest] = argv;
  const out = io.stdout ?? print;
  switch (command) {
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      out(HELP);
      return 0;
    case '--version':
    case '-v':
      out(`${VERSION}\n`);
      return 0;
    case 'new':
    case 'create':
      return runCreate(rest, io);
    case 'generate':
    case 'g':
      return guard(io, async (ui) => {
        const { values, positionals } = parseArgs({
          args: rest,
          allowPositionals: true,
          options: {
            server: { type: 'string' },
            fields: { type: 'string' },
            output: { type: 'string' },
            'read-only': { type: 'boolean' },
            uri: { type: 'string' },
            tags: { type: 'string' },
            operations: { type: 'string' },
            'no-format': { type: 'boolean' },
            force: { type: 'boolean' },
            'dry-run': { type: 'boolean' },
          },
        });
        const [kind, name, ...extra] = positionals;
        if (!kind || !name || extra.length > 0)
          throw new UsageError(`usage: armature generate <${GENERATE_KINDS.join('|')}> <name> [options]`);
        await generate(
          kind,
          name,
          {
            server: values.server,
            fields: values.fields,
            output: values.output,
            readOnly: values['read-only'],
            uri: values.uri,
            tags: values.tags,
            operations: values.operations,
            format: !values['no-format'],
            force: values.force,
            dryRun: values['dry-run'],
            cwd: io.cwd,
          },
          ui,
        );
        return 0;
      });
    case 'inspect':
      return guard(io, async () => {
        const { values, positionals } = parseArgs({
          args: rest,
          allowPositionals: true,
          options: {
            format: { type: 'string' },
            strict: { type: 'boolean' },
            rules: { type: 'boolean' },
            snapshot: { type: 'string' },
            check: { type: 'string' },
            'if-present': { type: 'boolean' },
            ui: { type: 'boolean' },
            url: { type: 'string' },
          },
        });
        if (values.url !== undefined && values.format !== 'server-card') throw new UsageError(INSPECT_USAGE);
        if (values.ui) return serveConsole(positionals, [], io);
        if (values.rules) {
          out(
            `${Object.entries(RULES)
              .map(([rule, what]) => `${rule.padEnd(24)} ${what}`)
              .join('\n')}\n`,
          );
          return 0;
        }
        if (positionals.length > 1) throw new UsageError(INSPECT_USAGE);
        const cwd = io.cwd ?? process.cwd();
        if (values.snapshot !== undefined || values.check !== undefined) {
          if (values.snapshot !== undefined && values.check !== undefined) throw new UsageError(INSPECT_USAGE);
          if (values.check !== undefined && values['if-present'] && !existsSync(resolve(cwd, values.check))) {
            out(skippedCheck(values.check));
            return 0;
          }
          // A missing or unreadable snapshot is said before the app is loaded (which takes seconds).
          const recorded = values.check === undefined ? undefined : readContractSnapshot(cwd, values.check);
          const catalogue = await loadCatalogue(findProject(cwd).root, positionals[0]);
          if (recorded === undefined) {
            out(writeContractSnapshot(cwd, values.snapshot as string, catalogue));
            return 0;
          }
          const check = checkContract(values.check as string, recorded, catalogue);
          out(check.output);
          return check.breaking ? 1 : 0;
        }
        const result = await inspectProject({
          entry: positionals[0],
          format: oneOf<InspectFormat>(values.format, INSPECT_FORMATS, '--format'),
          ...(values.url === undefined ? {} : { url: values.url }),
          cwd: io.cwd,
        });
        out(result.output);
        return values.strict && result.findings.length > 0 ? 1 : 0;
      });
    case 'check':
      return guard(io, async () => {
        const { positionals } = parseArgs({ args: rest, allowPositionals: true, options: {} });
        if (positionals.length > 1) throw new UsageError('usage: armature check [folder]');
        const project = findProject(io.cwd ?? process.cwd());
        const settings = missingDecoratorSettings(project.root).map((m) => ({
          rule: 'decorator-settings',
          where: m.tsconfig,
          message: `does not set "${m.setting}": true: ${m.message} [${m.code}]. Fix: ${m.fix}`,
        }));
        const findings = [...settings, ...findUndecoratedProperties(project.root, positionals[0])];
        for (const f of findings) out(`${f.rule}  ${f.where}: ${f.message}\n`);
        out(
          findings.length === 0
            ? 'armature check: every DTO property has a decorator\n'
            : `armature check: ${findings.length} finding(s)\n`,
        );
        return findings.length === 0 ? 0 : 1;
      });
    case 'build':
      return guard(io, async () => {
        const { values, positionals } = parseArgs({
          args: rest,
          allowPositionals: true,
          options: { out: { type: 'string' }, external: { type: 'string', multiple: true }, target: { type: 'string' } },
        });
        const usage = 'usage: armature build [entry] [--out <dir>] [--external <package>] [--target node|workers]';
        if (positionals.length > 1) throw new UsageError(usage);
        const target = values.target ?? 'node';
        if (target !== 'node' && target !== 'workers') throw new UsageError(`--target is node or workers, got ${target}\n${usage}`);
        const built = await buildApp({ entry: positionals[0], outDir: values.out, external: values.external, target, cwd: io.cwd });
        const files = built.files.filter((f) => f.endsWith('.mjs')).length;
        out(`armature build: ${built.entry} (${(built.bytes / 1024).toFixed(0)} KiB of JavaScript in ${files} file(s))\n`);
        if (built.notInstalled.length > 0) {
          out(`Not installed, so left as imports that fail only if they run: ${built.notInstalled.join(', ')}\n`);
        }
        out(
          target === 'workers'
            ? `Serve it with: npx wrangler dev (wrangler.toml: main = "${built.entry}")\n`
            : `Run it with: node ${built.entry}\n`,
        );
        return 0;
      });
    case 'dev':
      return guard(io, async () => {
        // Everything after `--` belongs to the entry; only what comes before is armature's.
        const end = rest.indexOf('--');
        const own = end === -1 ? rest : rest.slice(0, end);
        const entryArgs = end === -1 ? [] : rest.slice(end + 1);
        const { values, positionals } = parseDevArgs(own);
        if (positionals.length > 1) throw new UsageError('usage: armature dev [entry] [--watch <path>] [-- <arguments for the entry>]');
        if (values.ui && entryArgs.length > 0) {
          throw new UsageError(`armature dev --ui serves the app itself, so arguments after -- are not used: drop ${entryArgs.join(' ')}`);
        }
        if (values.ui) return serveConsole(positionals, values.watch, io);
        const session = startDev({ entry: positionals[0], watch: values.watch, args: entryArgs, cwd: io.cwd });
        await session.closed;
        return 0;
      });
    default:
      (io.stderr ?? ((text: string) => process.stderr.write(text)))(`armature: unknown command "${command}"\n\n${HELP}`);
      return 1;
  }
}
