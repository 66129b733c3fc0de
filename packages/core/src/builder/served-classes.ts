import type { ContainerAdapter } from '../di/container-adapter.js';
import { ArmatureBuildError, type BuildProblem } from '../messages/build-error.js';
import { MESSAGES, problem } from '../messages/message-catalog.js';
import type { Constructor } from '../metadata/metadata-args.js';
import type { MetadataStorage } from '../metadata/metadata-storage.js';

// Which of the classes given can be served, settled before any plan is built: the container learns
// them first (it decides which guard and interceptor classes it provides).

/** The classes that can be served, and why each other one (by its index in `given`) cannot. */
export function servedClasses(
  given: readonly Constructor[],
  storage: MetadataStorage,
): { served: Constructor[]; refusals: Map<number, BuildProblem> } {
  const served: Constructor[] = [];
  const refusals = new Map<number, BuildProblem>();
  given.forEach((serverClass, index) => {
    if (typeof serverClass !== 'function') refusals.set(index, problem(MESSAGES.notAClass, 'createMcpApp', String(serverClass)));
    else if (served.includes(serverClass)) refusals.set(index, problem(MESSAGES.listedTwice, serverClass.name));
    else if (!storage.findServer(serverClass)) refusals.set(index, problem(MESSAGES.notDecorated, serverClass.name, serverClass.name));
    else served.push(serverClass);
  });
  return { served, refusals };
}

/** The container's own start-up problems (returned, or thrown as an `ArmatureBuildError`). */
export function prepareContainer(
  container: ContainerAdapter | undefined,
  servers: readonly Constructor[],
  requestScoped: readonly Constructor[],
): readonly BuildProblem[] {
  if (!container?.prepare) return [];
  try {
    return container.prepare({ servers, requestScoped }) ?? [];
  } catch (error) {
    if (error instanceof ArmatureBuildError) return error.problems;
    return [problem(MESSAGES.containerPrepareFailed, 'container', error instanceof Error ? error.message : String(error))];
  }
}
