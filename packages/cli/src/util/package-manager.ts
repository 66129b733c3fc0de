/** The package managers a generated project can be set up with. */
export type PackageManager = 'npm' | 'pnpm' | 'yarn' | 'bun';

export const PACKAGE_MANAGERS: readonly PackageManager[] = ['npm', 'pnpm', 'yarn', 'bun'];

/** The package manager that ran us (`npm create`, `pnpm create`, ...), from `npm_config_user_agent`. */
export function detectPackageManager(userAgent = process.env.npm_config_user_agent ?? ''): PackageManager {
  const name = userAgent.split('/')[0];
  return PACKAGE_MANAGERS.includes(name as PackageManager) ? (name as PackageManager) : 'npm';
}

/** How to run a package.json script: `npm run dev`, `pnpm dev`, ... */
export function runScript(pm: PackageManager, script: string): string {
  return pm === 'npm' ? `npm run ${script}` : `${pm} ${script}`;
}

/** How to run a binary of the project's dependencies: `npx armature`, `pnpm exec armature`, ... */
export function execBinary(pm: PackageManager, binary: string): string {
  switch (pm) {
    case 'npm':
      return `npx ${binary}`;
    case 'pnpm':
      return `pnpm exec ${binary}`;
    case 'yarn':
      return `yarn ${binary}`;
    case 'bun':
      return `bunx ${binary}`;
  }
}
