import { readFileSync } from 'node:fs';
import { GENERATE_KINDS } from '../generate/generate-context.js';

/** This package's version, as `armature --version` prints it. */
export const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/** The options of `armature new` and `create-armature`, as both helps list them. */
const NEW_OPTIONS = `  --template default|nestjs  nestjs: a Nest app, REST and MCP on Nest's HTTP port (default: default)
  --transport stdio|http     how clients connect (default stdio; the nestjs template is http)
  --runtime <runtime>        what runs the server: node (default); bun or deno, running src/ as it is;
                             workers, a Cloudflare Worker (Streamable HTTP, 2026-07-28 only)
  --pm npm|pnpm|yarn|bun     package manager (default: the one running this)
  --no-install               write the files only
  --dir <path>               folder to create (default: the name without its scope)
  -y, --yes                  take the defaults, ask nothing`;

/** `armature help`. */
export const HELP = `armature ${VERSION}: scaffold, grow, inspect and run Armature MCP servers

Usage
  armature new <name> [options]             a new project (same as npm create armature@latest)
  armature generate <kind> <name> [options] add code and its test; kinds: ${GENERATE_KINDS.join(', ')}
  armature generate openapi <file-or-url>   tools calling a REST API, from its OpenAPI 3.0/3.1 document
  armature inspect [entry] [options]        print and lint the tools, resources and prompts
  armature dev [entry] [options] [-- args]  run the server with vite-node, restarting on changes
  armature check [folder]                   find DTO properties with no decorator (default src), without running them
  armature build [entry] [options]          bundle the compiled server into one file that starts faster

new
${NEW_OPTIONS}

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

/** `create-armature --help`. */
export const CREATE_HELP = `create-armature ${VERSION}: a new Armature MCP server project, with a tool, its DTOs and tests

Usage
  npm create armature@latest <name> [-- options]
  pnpm create armature <name> [options]
  create-armature <name> [options]           (also: armature new <name> [options])

Options
${NEW_OPTIONS}
  --dry-run                  print the plan, write nothing
  --force                    overwrite existing files (otherwise nothing is overwritten)
  -h, --help                 this help
`;
