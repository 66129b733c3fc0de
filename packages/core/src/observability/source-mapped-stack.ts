/** What `node:module`'s SourceMap answers for one position of the generated file. */
interface SourceMapEntry {
  originalSource?: string;
  originalLine?: number;
  originalColumn?: number;
}
interface SourceMapLike {
  findEntry(line: number, column: number): SourceMapEntry | Record<string, never>;
}
interface Builtins {
  SourceMap: new (payload: unknown) => SourceMapLike;
  readFileSync(path: string, encoding: 'utf8'): string;
  fileURLToPath(url: string): string;
  dirname(path: string): string;
  resolve(...paths: string[]): string;
}

/** Each generated file's map, parsed at its first frame (null: none, or unreadable). */
const maps = new Map<string, SourceMapLike | null>();
let builtins: Builtins | null | undefined;

/**
 * A stack as its sources name it, for the lines Armature prints itself (a failed call in the log):
 * a process started without `--enable-source-maps` (as `npm start` runs the bundle, to start
 * faster) pays for a source map only when it prints a stack, once per file. Node does it itself
 * when the flag is on; elsewhere (no `process.getBuiltinModule`, no map beside the file) the stack
 * is left as it is.
 */
export function sourceMappedStack(stack: string): string {
  const runtime = globalThis.process;
  if (!runtime || (runtime as { sourceMapsEnabled?: boolean }).sourceMapsEnabled) return stack;
  const node = loadBuiltins(runtime);
  if (!node) return stack;
  return stack.replace(/((?:file:\/\/)?\/[^\s():]+\.[cm]?js):(\d+):(\d+)/g, (frame, file: string, line: string, column: string) => {
    const path = file.startsWith('file://') ? node.fileURLToPath(file) : file;
    const entry = mapOf(node, path)?.findEntry(Number(line) - 1, Number(column) - 1) as SourceMapEntry | undefined;
    if (entry?.originalSource === undefined || entry.originalLine === undefined || entry.originalColumn === undefined) return frame;
    const source = entry.originalSource.startsWith('file://')
      ? node.fileURLToPath(entry.originalSource)
      : node.resolve(node.dirname(path), entry.originalSource);
    return `${source}:${entry.originalLine + 1}:${entry.originalColumn + 1}`;
  });
}

function loadBuiltins(runtime: NonNullable<typeof globalThis.process>): Builtins | null {
  if (builtins !== undefined) return builtins;
  const get = (runtime as { getBuiltinModule?: (id: string) => Record<string, unknown> | undefined }).getBuiltinModule;
  const module = get?.('node:module');
  const fs = get?.('node:fs');
  const url = get?.('node:url');
  const path = get?.('node:path');
  builtins =
    typeof module?.SourceMap === 'function' && fs && url && path
      ? ({
          SourceMap: module.SourceMap,
          readFileSync: fs.readFileSync,
          fileURLToPath: url.fileURLToPath,
          dirname: path.dirname,
          resolve: path.resolve,
        } as Builtins)
      : null;
  return builtins;
}

function mapOf(node: Builtins, file: string): SourceMapLike | null {
  let map = maps.get(file);
  if (map !== undefined) return map;
  map = null;
  try {
    const link = /\/\/# sourceMappingURL=(\S+)\s*$/.exec(node.readFileSync(file, 'utf8'))?.[1];
    if (link && !link.startsWith('data:')) {
      map = new node.SourceMap(JSON.parse(node.readFileSync(node.resolve(node.dirname(file), link), 'utf8')));
    }
  } catch {
    // no readable map: the frame stays as it is
  }
  maps.set(file, map);
  return map;
}
