import { ArmatureBuildError } from '../../src/index.js';

/** The ArmatureBuildError `run` throws (anything else is rethrown; no throw fails the test). */
export function buildError(run: () => unknown): ArmatureBuildError {
  try {
    run();
  } catch (error) {
    if (error instanceof ArmatureBuildError) return error;
    throw error;
  }
  throw new Error('expected an ArmatureBuildError');
}
