// TypeScript 7 has no JS API, and TypeDoc (the docs site's API reference) takes `typescript` as a peer,
// which pnpm would resolve to the docs package's TypeScript 7. TypeDoc gets its own 6.0.3 instead; every
// other package, including the docs package's own type-check, keeps TypeScript 7.
function readPackage(pkg) {
  if (pkg.name === 'typedoc') {
    delete pkg.peerDependencies?.typescript;
    pkg.dependencies = { ...pkg.dependencies, typescript: '6.0.3' };
  }
  return pkg;
}

export const hooks = { readPackage };
