import { type Catalogue, InspectError } from './load-catalogue.js';
import { type PublishManifest, serverJsonOf } from './server-json.js';

/**
 * `armature inspect --format server-card`: the SEP-2127 draft's server card, written from the same
 * fields as server.json (package.json's mcpName, description, homepage and repository, @McpServer's
 * version, title and icons) by the builder `listenHttp({ serverCard })` serves; `url` (the public
 * endpoint) adds its `remotes` entry. `@armature/core` is the project's, loaded only here: the CLI
 * also runs where no project is installed yet (`npm create armature`).
 */
export async function formatServerCard(catalogue: Catalogue, manifest: PublishManifest, url?: string): Promise<string> {
  const serverJson = serverJsonOf(catalogue, manifest);
  const { ArmatureBuildError, serverCardOf } = await import('@armature/core');
  try {
    const card = serverCardOf(
      catalogue.server,
      {
        name: serverJson.name as string,
        description: serverJson.description as string,
        ...(serverJson.websiteUrl ? { websiteUrl: serverJson.websiteUrl as string } : {}),
        ...(serverJson.repository ? { repository: serverJson.repository as { url: string; source: string } } : {}),
        ...(url ? { url } : {}),
      },
      'package.json and @McpServer',
    );
    return `${JSON.stringify(card, null, 2)}\n`;
  } catch (error) {
    if (error instanceof ArmatureBuildError) throw new InspectError(error.message);
    throw error;
  }
}
