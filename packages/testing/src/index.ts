export { buildDto, DtoValidationError, dtoIssues, expectDtoRejects } from './dto-helpers.js';
export { listSkills, type SkillEntry, verifySkill } from './skills.js';
export {
  createTestContext,
  type RecordedLog,
  type RecordedProgress,
  TestContext,
  type TestContextOptions,
} from './test-context.js';
export {
  type CallToolOptions,
  createTestingApp,
  type Fake,
  type ProviderOverride,
  type ProviderToken,
  type ReceivedLog,
  type ReportedError,
  TestingApp,
  TestingAppBuilder,
  type TestingAppOptions,
} from './testing-app.js';
export { textOf } from './text-of.js';
export { wireDates } from './wire-dates.js';
