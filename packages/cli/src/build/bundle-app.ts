import { existsSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import { basename, dirname, extname, join, relative, resolve } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import type { Plugin, RolldownOutput } from 'rolldown';
import { findProject, ProjectError, toPosix } from '../util/project.js';

export interface BuildOptions {
  /** The compiled entry that starts the server (default `dist/main.js`, what `npm run build` writes). */
  entry?: string;
  /** Where the bundle goes (default `dist/bundle`); the entry becomes `<name>.mjs` in it. */
  outDir?: string;
  /** Packages left out of the bundle and imported from node_modules at run time (native addons, say). */
  external?: readonly string[];
  /**
   * `workers`: one module for Cloudflare Workers (`nodejs_compat`), whose entry (default
   * `dist/worker.js`) does `export default serveOnWorkers(app)`; written to `dist/worker` by default.
   */
  target?: 'node' | 'workers';
  cwd?: string;
}

export interface BuildResult {
  /** The file to run, relative to the project: `node <entry>`. */
  readonly entry: string;
  /** Every file written, relative to the project. */
  readonly files: readonly string[];
  /** Size of the JavaScript written, in bytes (source maps not counted). */
  readonly bytes: number;
  /**
   * Packages imported somewhere but not installed (optional ones, such as the transports
   * @nestjs/core tries): left as imports, which fail at run time only if reached, as under Node.
   */
  readonly notInstalled: readonly string[];
}

const BUILTINS = new Set(builtinModules);
const isBuiltin = (id: string): boolean => id.startsWith('node:') || BUILTINS.has(id) || BUILTINS.has(id.split('/')[0] as string);

/**
 * The app's compiled files with the source maps tsc wrote beside them, so the bundle's map goes on
 * to the TypeScript sources: with `node --enable-source-maps`, a stack names `src/greeter.ts:12`,
 * not `dist/bundle/main.mjs:39072`. Packages keep what they ship.
 */
function compiledSourceMaps(): Plugin {
  return {
    name: 'armature:compiled-source-maps',
    load(id) {
      if (!/\.[mc]?js$/.test(id) || /[\\/]node_modules[\\/]/.test(id) || !existsSync(`${id}.map`)) return null;
      return { code: readFileSync(id, 'utf8'), map: readFileSync(`${id}.map`, 'utf8') };
    },
  };
}

/**
 * `armature build`: the compiled server and everything it imports, joined into one ES module (plus
 * a chunk per lazily imported library) with rolldown, started by a launcher that turns on Node's
 * compile cache first (for Node; a Worker is the bundle alone). A fresh process then reads and links one file
 * instead of several hundred, and class-validator (with class-transformer and typedi) comes from its side-effect-free ES build, so the
 * validators no DTO uses (and validator.js, libphonenumber-js behind them) are left out. tsc stays the
 * compiler: it alone emits the decorator metadata Armature reads, so the bundle starts from its output.
 */
export async function buildApp(options: BuildOptions = {}): Promise<BuildResult> {
  const project = findProject(options.cwd ?? process.cwd());
  const root = project.root;
  const workers = options.target === 'workers';
  const entryName = options.entry ?? (workers ? 'dist/worker.js' : 'dist/main.js');
  const entry = resolve(root, entryName);
  if (/\.[mc]?tsx?$/.test(entry)) {
    throw new ProjectError(
      `armature build bundles the compiled JavaScript, and ${entryName} is TypeScript.\n` +
        'Fix: compile first (npm run build), then name the compiled entry: armature build dist/main.js',
    );
  }
  if (!existsSync(entry)) {
    throw new ProjectError(
      `${entryName} does not exist.\nFix: compile first (npm run build), or name the compiled entry: armature build <entry.js>`,
    );
  }
  const outDir = resolve(root, options.outDir ?? (workers ? 'dist/worker' : 'dist/bundle'));
  const external = options.external ?? [];
  const isExternal = (id: string): boolean => isBuiltin(id) || external.some((name) => id === name || id.startsWith(`${name}/`));

  const notInstalled = new Set<string>();
  const { build } = await import('rolldown');
  const name = basename(entry, extname(entry));
  const output: RolldownOutput = await build({
    // For Node, `<name>.mjs` is the launcher written below and the app is `<name>.app.mjs`.
    input: { [workers ? name : `${name}.app`]: entry },
    cwd: root,
    platform: 'node',
    external: isExternal,
    plugins: [
      esBuilds(),
      ...(workers ? [] : [ajvAtFirstUse(outDir)]),
      notInstalledAsImports(notInstalled),
      ownFileUrls(outDir, workers),
      compiledSourceMaps(),
    ],
    // Libraries' own warnings (eval, circular imports) are not the user's to act on.
    logLevel: 'silent',
    write: true,
    output: {
      dir: outDir,
      format: 'esm',
      entryFileNames: '[name].mjs',
      // Lazily imported libraries (jose, for JWT auth) get a file of their own, in the same folder:
      // ownFileUrls computes paths from outDir.
      chunkFileNames: '[name]-[hash].mjs',
      // A Worker is uploaded as one module: lazily imported libraries are inlined.
      ...(workers ? { codeSplitting: false } : {}),
      sourcemap: true,
      // One non-ASCII character (a dash in a comment or message) makes V8 hold and scan the whole
      // source as two-byte text: escaped, the chunk stays one byte per character. JSDoc goes (the
      // source maps lead to it); licence comments stay.
      charset: 'ascii',
      comments: { legal: true, annotation: false, jsdoc: false },
      banner: OWN_FILE_HELPERS,
    },
  }).catch((error: unknown) => {
    throw new ProjectError(
      `armature build could not bundle ${entryName}: ${stripVTControlCharacters((error as Error).message).trim()}\n` +
        'Fix: if a file of your app is missing, compile again (npm run build); if a library is what fails, leave it out of the bundle with --external <package> (it is then imported from node_modules at run time).',
    );
  });

  const written = output.output.map((file) => ({
    fileName: file.fileName,
    bytes: file.type === 'chunk' ? Buffer.byteLength(file.code) : 0,
  }));
  const main = output.output.find((file) => file.type === 'chunk' && file.isEntry)?.fileName ?? '';
  let entryFile = main;
  if (!workers) {
    entryFile = `${name}.mjs`;
    const code = compileCacheLauncher(main);
    writeFileSync(join(outDir, entryFile), code);
    written.push({ fileName: entryFile, bytes: Buffer.byteLength(code) });
  }
  const files = written.map((file) => toPosix(relative(root, join(outDir, file.fileName)))).sort();
  const bytes = written.reduce((sum, file) => sum + file.bytes, 0);
  return { entry: toPosix(relative(root, join(outDir, entryFile))), files, bytes, notInstalled: [...notInstalled].sort() };
}

/**
 * What `node <name>.mjs` runs: Node's compile cache turned on, then the app's bundle. From Node
 * 22.8 a start reads the code V8 compiled at the previous one instead of compiling the 1 MB or so
 * of the bundle again. The cache is kept beside the bundle (`.compile-cache`), in a folder that
 * belongs to whoever built the app, not in a shared temporary folder another local user could
 * have made first; `NODE_COMPILE_CACHE` puts it elsewhere, `NODE_DISABLE_COMPILE_CACHE=1` turns it
 * off, and where the folder cannot be written (a read-only image) the start simply compiles. Node
 * 20 has no such cache: there the launcher only imports the app. It must run before the app's
 * module is loaded, hence a file of its own.
 */
function compileCacheLauncher(app: string): string {
  return [
    "import module from 'node:module';",
    "import { fileURLToPath } from 'node:url';",
    "module.enableCompileCache?.(process.env.NODE_COMPILE_CACHE || fileURLToPath(new URL('.compile-cache', import.meta.url)));",
    `await import(${JSON.stringify(`./${app}`)});`,
    '',
  ].join('\n');
}

/**
 * class-validator, class-transformer and typedi ship CommonJS (`main`) and an ES build marked
 * side-effect free (`es2015`). Both the user's code and @armature/core (which also imports
 * `<package>/cjs/...` files) are pointed at the ES build, so there is one copy of each, the unused
 * validators can be left out, and no CommonJS wrapper runs at start.
 */
const ES_BUILDS = ['class-validator', 'class-transformer', 'typedi'];

function esBuilds(): Plugin {
  const roots = new Map<string, string | null>();
  const esmRoot = (name: string, importer: string): string | null => {
    const key = `${name}\0${dirname(importer)}`;
    if (!roots.has(key)) {
      let found: string | null = null;
      try {
        const dir = dirname(realpathSync(createRequire(importer).resolve(`${name}/package.json`)));
        const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { es2015?: string };
        if (pkg.es2015 && existsSync(join(dir, 'esm2015'))) found = join(dir, 'esm2015');
      } catch {
        // not installed where this module looks: rolldown reports the import itself
      }
      roots.set(key, found);
    }
    return roots.get(key) ?? null;
  };
  return {
    name: 'armature:es-builds',
    resolveId(source, importer) {
      const name = importer && ES_BUILDS.find((candidate) => source === candidate || source.startsWith(`${candidate}/cjs/`));
      if (!importer || !name) return null;
      const esm = esmRoot(name, importer);
      if (!esm) return null;
      const file = source === name ? 'index.js' : source.slice(`${name}/cjs/`.length);
      const target = join(esm, file.endsWith('.js') ? file : `${file}.js`);
      return existsSync(target) ? target : null;
    },
  };
}

/** The SDK's Node shims, as @modelcontextprotocol/server 2.x writes them: Ajv as the default JSON Schema validator. */
const SDK_NODE_SHIMS = 'export { AjvJsonSchemaValidator as DefaultJsonSchemaValidator, process };';
const LAZY_AJV_SHIMS = '\0armature:sdk-shims-ajv-at-first-use';

/**
 * The SDK's server imports its Node shims, which import Ajv (about 280 KB, a sixth of a stdio
 * server's bundle) and build it at load time, only so that an `McpServer` can validate a
 * JSON Schema later (elicitation answers, `fromJsonSchema`), which an Armature app rarely asks
 * of it. In the bundle those shims become a module whose validator loads the SDK's own
 * `validators/ajv` export (the same Ajv validator) the first time a schema is validated: a start
 * parses and runs none of Ajv. Done only when the shims read exactly as expected; otherwise they
 * are bundled as they are.
 */
function ajvAtFirstUse(outDir: string): Plugin {
  return {
    name: 'armature:ajv-at-first-use',
    async resolveId(source, importer, extra) {
      if (source !== '@modelcontextprotocol/server/_shims' || !importer) return null;
      const resolved = await this.resolve(source, importer, { kind: extra.kind, skipSelf: true });
      if (!resolved || resolved.external || !resolved.id.endsWith('shimsNode.mjs')) return resolved;
      const code = readFileSync(resolved.id, 'utf8');
      const validators = join(dirname(resolved.id), 'validators', 'ajv.cjs');
      if (!code.includes(SDK_NODE_SHIMS) || !existsSync(validators)) return resolved;
      // One module per copy of the SDK, each loading Ajv from its own folder.
      return `${LAZY_AJV_SHIMS}:${resolved.id}`;
    },
    load(id) {
      if (!id.startsWith(`${LAZY_AJV_SHIMS}:`)) return null;
      const from = JSON.stringify(ownPath(outDir, id.slice(LAZY_AJV_SHIMS.length + 1)));
      return [
        "import { createRequire } from 'node:module';",
        "import process from 'node:process';",
        `const load = () => createRequire(new URL(${from}, import.meta.url))('@modelcontextprotocol/server/validators/ajv').AjvJsonSchemaValidator;`,
        'let Validator;',
        'class DefaultJsonSchemaValidator {',
        '  #args;',
        '  #validator;',
        '  constructor(...args) { this.#args = args; }',
        '  get #loaded() { return (this.#validator ??= new (Validator ??= load())(...this.#args)); }',
        '  get ajv() { return this.#loaded.ajv; }',
        '  getValidator(schema) { return this.#loaded.getValidator(schema); }',
        '}',
        'export { DefaultJsonSchemaValidator, process };',
      ].join('\n');
    },
  };
}

/** `@scope/name/deep/file.js` -> `@scope/name`, `name/file.js` -> `name`. */
const packageOf = (source: string): string =>
  source
    .split('/')
    .slice(0, source.startsWith('@') ? 2 : 1)
    .join('/');

/**
 * A bare import that resolves nowhere stays an import in the bundle, as it was in the compiled
 * code: Node fails on it only when it runs, and libraries that try optional packages
 * (`try { require('@nestjs/microservices') } catch {}`) rely on that. Each one is reported.
 */
function notInstalledAsImports(notInstalled: Set<string>): Plugin {
  return {
    name: 'armature:not-installed',
    async resolveId(source, importer, extra) {
      if (!importer || /^[./\0]/.test(source) || /^[A-Za-z]:[\\/]/.test(source) || isBuiltin(source)) return null;
      const resolved = await this.resolve(source, importer, { kind: extra.kind, skipSelf: true });
      if (resolved) return resolved;
      notInstalled.add(packageOf(source));
      return { id: source, external: true };
    },
  };
}

/** Where a bundled module's own file is, relative to the bundle's folder, as a URL path. */
const ownPath = (outDir: string, id: string): string => toPosix(relative(outDir, realpathSync(id)));

/**
 * `import.meta.url` keeps naming the module's own file, not the bundle, and so do `__dirname` and
 * `__filename` in a CommonJS module (which ES output would leave undefined): a library that loads
 * a file or a package relative to itself (core loads Ajv that way, only for hand-written schemas)
 * finds it where it did before. The bundle therefore runs next to the project's node_modules.
 */
function ownFileUrls(outDir: string, workers: boolean): Plugin {
  const commonJs = commonJsRule();
  return {
    name: 'armature:own-file-urls',
    transform(code, id) {
      if (id.startsWith('\0')) return null;
      let out = code;
      if (out.includes('import.meta.url')) {
        out = out.replace(/\bimport\.meta\.url\b/g, `new URL(${JSON.stringify(ownPath(outDir, id))}, import.meta.url).href`);
      }
      if (/\b__(dirname|filename)\b/.test(out) && commonJs(id)) {
        out = `var __filename = ${OWN_FILE}(${JSON.stringify(ownPath(outDir, id))}), __dirname = ${OWN_DIR}(__filename);\n${out}`;
      }
      return out === code ? null : { code: out };
    },
    // The bundle's own createRequire and the lines above, once the module is one file.
    renderChunk: workers ? (code) => ({ code: code.replace(/\bimport\.meta\.url\b/g, WORKER_BASE) }) : undefined,
  };
}

const OWN_FILE = '__armatureOwnFile';
/**
 * workerd gives a module no file URL: one under file:///worker/ keeps createRequire and
 * fileURLToPath working (nothing is read there: what a Worker needs is in the bundle).
 */
const WORKER_BASE = JSON.stringify('file:///worker/');
const OWN_DIR = '__armatureOwnDir';
/** Put at the top of every file written: what the `__filename` lines above call. */
const OWN_FILE_HELPERS =
  `import { fileURLToPath as ${OWN_FILE}Path } from 'node:url';\n` +
  `import { dirname as ${OWN_DIR} } from 'node:path';\n` +
  `const ${OWN_FILE} = (path) => ${OWN_FILE}Path(new URL(path, import.meta.url));`;

/** Node's own rule: `.cjs` is CommonJS, `.js` is unless the nearest package.json says `"type": "module"`. */
function commonJsRule(): (file: string) => boolean {
  const typeOf = new Map<string, string | undefined>();
  const typeAt = (dir: string): string | undefined => {
    if (!typeOf.has(dir)) {
      const manifest = join(dir, 'package.json');
      const parent = dirname(dir);
      typeOf.set(
        dir,
        existsSync(manifest)
          ? ((JSON.parse(readFileSync(manifest, 'utf8')) as { type?: string }).type ?? 'commonjs')
          : parent === dir
            ? 'commonjs'
            : typeAt(parent),
      );
    }
    return typeOf.get(dir);
  };
  return (file) => file.endsWith('.cjs') || (file.endsWith('.js') && typeAt(dirname(file)) !== 'module');
}
