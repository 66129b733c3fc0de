import type { BuildProblem } from '../messages/build-error.js';
import { MESSAGES, problem } from '../messages/message-catalog.js';
import type { Constructor } from '../metadata/metadata-args.js';
import type { PlanContext } from './build-call-plan.js';
import type { PartNaming, RemotePartDefinition } from './definitions.js';
import { type AppPart, MountedPart, PREFIX_PATTERN, unprefixed } from './mounted-part.js';
import { RemoteServerRef } from './remote-server.js';

// The parts of an app (`mount(prefix, ...)`, `remoteServer(...)`): each mounted part's planning
// (its prefix checked), and the remote servers as planned at start-up.

/** The planning of each mounted part (its tags, guards, rate limits), its prefix checked. */
export function partPlanning(parts: readonly AppPart[], planning: PlanContext, problems: BuildProblem[]): Map<MountedPart, PlanContext> {
  const planned = new Map<MountedPart, PlanContext>();
  for (const part of parts) {
    if (!(part instanceof MountedPart) || planned.has(part)) continue;
    if (typeof part.prefix !== 'string' || !PREFIX_PATTERN.test(part.prefix))
      problems.push(problem(MESSAGES.mountPrefixInvalid, part.where, String(part.prefix)));
    planned.set(part, planning.forPart(part));
  }
  return planned;
}

/** The remote servers of `parts`: mounted ones under their prefix, bare ones under their own names. */
export function remotePartsOf(
  parts: readonly AppPart[],
  planning: PlanContext,
  planned: ReadonlyMap<MountedPart, PlanContext>,
  problems: BuildProblem[],
): RemotePartDefinition[] {
  const mounted = parts.filter((part): part is MountedPart => part instanceof MountedPart && part.remote !== undefined);
  const bare = parts.filter((part): part is RemoteServerRef => part instanceof RemoteServerRef);
  return [
    ...mounted.map((part) =>
      remotePart(
        part.remote as RemoteServerRef,
        part,
        planned.get(part) as PlanContext,
        parts.some((other) => other !== part && other instanceof MountedPart && other.prefix === part.prefix),
        problems,
      ),
    ),
    ...bare.map((remote) => remotePart(remote, unprefixed(remote), planning, false, problems)),
  ];
}

/**
 * A remote part as planned at start-up: its options checked, its prefix its own (its names are
 * only known once it answers, so a clash could not be reported now), and what its plans share.
 */
function remotePart(
  remote: RemoteServerRef,
  naming: PartNaming,
  planning: PlanContext,
  prefixShared: boolean,
  problems: BuildProblem[],
): RemotePartDefinition {
  const invalid = remote.problem();
  if (invalid) problems.push(problem(MESSAGES.remoteServerInvalid, naming.where, invalid, naming.where));
  if (prefixShared) problems.push(problem(MESSAGES.remotePrefixShared, naming.where, naming.where));
  // Guards and interceptors are told which class a call is for: a remote part's is named after it.
  const name = naming.prefix ? `Remote(${naming.prefix})` : 'Remote';
  const serverClass = { [name]: class {} }[name] as Constructor;
  return Object.freeze({ naming, remote, base: planning.sharedBase(serverClass) });
}
