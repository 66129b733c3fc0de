import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { applyPlan } from '../util/file-plan.js';
import { formatWithBiome } from '../util/format.js';
import { checkPackageName, suggestPackageName } from '../util/names.js';
import { detectPackageManager, PACKAGE_MANAGERS, type PackageManager, runScript } from '../util/package-manager.js';
import type { Ui } from '../util/ui.js';
import { nestNodeProblem, nestProjectFiles } from './nest-project-files.js';
import { type ProjectOptions, projectFiles, projectNames, type Template, type Transport } from './project-files.js';
import type { Runtime } from './runtime-commands.js';

export interface CreateProjectOptions {
  /** npm package name of the project; also the folder name (without the scope) unless `directory` is given. */
  name?: string;
  /** Folder to create, relative to `cwd`. */
  directory?: string;
  transport?: Transport;
  /** `nestjs`: a Nest app serving REST and MCP on one port. Default `default`. */
  template?: Template;
  /** What runs the server: `node` (default), `bun` / `deno` running the TypeScript sources, or `workers` (Cloudflare, HTTP only). */
  runtime?: Runtime;
  packageManager?: PackageManager;
  /** Run the package manager's install. Default true. */
  install?: boolean;
  /** Take the defaults instead of asking. */
  yes?: boolean;
  force?: boolean;
  dryRun?: boolean;
  cwd?: string;
  /** The Node version the template is checked against (the nestjs template needs 22.12+). Default: this process's. */
  nodeVersion?: string;
}

export interface CreatedProject {
  readonly root: string;
  readonly options: ProjectOptions;
  readonly written: readonly string[];
  readonly installed: boolean;
  /** The install was asked for and failed (the files are written). */
  readonly installFailed: boolean;
}

export class CreateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CreateError';
  }
}

const DEFAULT_NAME = 'my-mcp-server';

/** The files of the chosen template. */
function templateFiles(options: ProjectOptions) {
  return options.template === 'nestjs' ? nestProjectFiles(options) : projectFiles(options);
}

function installCommand(pm: PackageManager): [string, string[]] {
  return pm === 'yarn' ? ['yarn', []] : [pm, ['install']];
}

/** Runs the install, keeping its output to show only if it fails. */
function runInstall(pm: PackageManager, cwd: string): Promise<{ ok: boolean; output: string }> {
  const [command, args] = installCommand(pm);
  return new Promise((done) => {
    let output = '';
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], shell: process.platform === 'win32' });
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    child.on('error', (error) => done({ ok: false, output: `${output}${error.message}` }));
    child.on('close', (code) => done({ ok: code === 0, output }));
  });
}

/**
 * Scaffolds a new project: asks what it was not told (unless `yes` or not at a terminal), writes
 * the files (refusing to overwrite any without `force`), installs the dependencies with a spinner,
 * and prints the next steps.
 */
export async function createProject(options: CreateProjectOptions, ui: Ui): Promise<CreatedProject> {
  const cwd = options.cwd ?? process.cwd();
  const ask = ui.interactive && !options.yes;
  ui.intro('create-armature: a new MCP server');
  // Before any question: a template this Node cannot run is refused with nothing asked or written.
  const nestNode = options.template === 'nestjs' ? nestNodeProblem(options.nodeVersion ?? process.versions.node) : undefined;
  if (nestNode) throw new CreateError(nestNode);

  let name =
    options.name ??
    (ask
      ? await ui.text('Project name (an npm package name)', DEFAULT_NAME, (value) => {
          const found = checkPackageName(value.trim());
          const suggestion = found ? suggestPackageName(value) : undefined;
          return found && suggestion ? `${found}: try ${suggestion}` : found;
        })
      : DEFAULT_NAME);
  name = name.trim();
  const problem = checkPackageName(name);
  if (problem) {
    const suggestion = suggestPackageName(name);
    throw new CreateError(`"${name}" cannot be the project name: ${problem}.${suggestion ? `\nFix: use ${suggestion}` : ''}`);
  }

  const template = options.template ?? 'default';
  if (template === 'nestjs' && options.transport === 'stdio') {
    throw new CreateError(
      "the nestjs template serves MCP on Nest's HTTP port, so --transport stdio does not apply to it.\n" +
        'Fix: leave --transport out; to serve stdio too, add ArmatureModule.forRoot({ stdio: true }) in a standalone context (docs/nestjs.md, "stdio").',
    );
  }
  const runtime = options.runtime ?? 'node';
  if (template === 'nestjs' && runtime !== 'node') {
    throw new CreateError(
      `the nestjs template runs on Node (Nest's Express adapter is tested there only), so --runtime ${runtime} does not apply to it.\n` +
        `Fix: leave --runtime out, or use the default template with --runtime ${runtime}.`,
    );
  }
  if (runtime === 'workers' && options.transport === 'stdio') {
    throw new CreateError(
      'a Worker answers HTTP requests and has no process for a client to start, so --transport stdio does not apply to --runtime workers.\n' +
        'Fix: leave --transport out (a Worker serves Streamable HTTP), or use --runtime node, bun or deno for stdio.',
    );
  }
  const transport =
    options.transport ??
    (template === 'nestjs' || runtime === 'workers' ? 'http' : undefined) ??
    (ask
      ? await ui.select<Transport>(
          'Transport',
          [
            { value: 'stdio', label: 'stdio', hint: 'the client starts it: desktop apps, IDEs' },
            { value: 'http', label: 'Streamable HTTP', hint: 'a long-running server on a URL' },
          ],
          'stdio',
        )
      : 'stdio');
  const detected = detectPackageManager();
  const packageManager =
    options.packageManager ??
    (ask
      ? await ui.select<PackageManager>(
          'Package manager',
          PACKAGE_MANAGERS.map((pm) => ({ value: pm, label: pm })),
          detected,
        )
      : detected);
  const install = options.install ?? (ask ? await ui.confirm(`Install the dependencies with ${packageManager}?`, true) : true);

  const root = resolve(cwd, options.directory ?? name.replace(/^@[^/]+\//, ''));
  if (existsSync(root) && readdirSync(root).some((entry) => entry !== '.git') && !options.force) {
    const plan = templateFiles({ name, transport, packageManager, template, runtime });
    const clashes = plan.filter((file) => existsSync(resolve(root, file.path)));
    if (clashes.length > 0 && !options.dryRun) {
      throw new CreateError(
        `${relative(cwd, root) || '.'} already has files this project would overwrite (${clashes.map((f) => f.path).join(', ')}).\n` +
          'Nothing was written. Choose another name, empty the folder, or use --force to overwrite them.',
      );
    }
  }

  const projectOptions: ProjectOptions = { name, transport, packageManager, template, runtime };
  const applied = applyPlan(root, templateFiles(projectOptions), { force: options.force, dryRun: options.dryRun });
  const shown = relative(cwd, root) || '.';
  ui.note(applied.lines.join('\n'), options.dryRun ? `Would create ${shown} (dry run: nothing written)` : `Created ${shown}`);
  if (options.dryRun) return { root, options: projectOptions, written: [], installed: false, installFailed: false };
  formatWithBiome(root, applied.written);

  let installed = false;
  if (install) {
    const step = ui.progress(`Installing dependencies with ${packageManager}`);
    const outcome = await runInstall(packageManager, root);
    if (outcome.ok) {
      step.done(`Installed dependencies with ${packageManager}`);
      installed = true;
    } else {
      step.fail(`${packageManager} install failed; the project is written, install it yourself`);
      ui.note(outcome.output.trim().split('\n').slice(-15).join('\n'), `${packageManager} said`);
    }
  }

  const names = projectNames(name);
  const steps = [
    `cd ${shown}`,
    ...(installed ? [] : [installCommand(packageManager).flat().join(' ')]),
    `${runScript(packageManager, 'test')}      # tests at three levels`,
    ...(runtime === 'workers'
      ? [`${runScript(packageManager, 'build')}     # the Worker bundle; then ${runScript(packageManager, 'dev')} (wrangler) serves it`]
      : [`${runScript(packageManager, 'dev')}       # run it, restarting on changes`]),
    `${runScript(packageManager, 'inspect')}   # print and lint the tools`,
  ];
  ui.note(steps.join('\n'), 'Next steps');
  const installFailed = install && !installed;
  ui.outro(
    installFailed
      ? `${names.serverClass} is written in ${shown} but its dependencies are not installed: run ${installCommand(packageManager).flat().join(' ')} there first.`
      : `${names.serverClass} is ready in ${shown}. Add a tool with: armature generate tool <name>`,
  );
  return { root, options: projectOptions, written: applied.written, installed, installFailed };
}
