// Every text of the skills extension (SEP-2640): the start-up problems it reports (as
// `{ message, fix }`, listed by createMcpApp under ARM168) and the errors its methods answer with.

type Problem = { readonly message: string; readonly fix: string };

const SKILL_FOLDER_FIX = 'a skill is a folder holding a SKILL.md whose frontmatter has name and description';

export const skillProblems = {
  folderMissing: (folder: string, reason: string): Problem => ({
    message: `the skills folder ${folder} cannot be read (${reason})`,
    fix: "skills({ dirs: ['./skills'] }) with a folder that exists, resolved from the process's working directory or given absolute",
  }),
  noSkill: (folder: string): Problem => ({
    message: `${folder} holds no SKILL.md, and no folder in it does`,
    fix: `${SKILL_FOLDER_FIX}; list the folder of skill folders, or the skill folder itself`,
  }),
  symlink: (path: string): Problem => ({
    message: `${path} is a symbolic link; a skill is served from its own folder only, so links (which may point out of it) are refused`,
    fix: 'copy the file into the skill folder instead of linking it',
  }),
  special: (path: string): Problem => ({
    message: `${path} is neither a file nor a folder (a socket, a device or a pipe)`,
    fix: 'keep only files and folders in a skill folder',
  }),
  tooDeep: (path: string, depth: number): Problem => ({
    message: `${path} is more than ${depth} folders deep inside its skill`,
    fix: 'flatten the skill folder',
  }),
  tooManyFiles: (skill: string, limit: number): Problem => ({
    message: `the skill ${skill} has more than ${limit} files, SKILL.md included (SEP-2640's limit)`,
    fix: 'split it into several skills, or raise skills({ limits: { files } }) knowing hosts may refuse it',
  }),
  tooLarge: (skill: string, limit: number): Problem => ({
    message: `the files of the skill ${skill} add up to more than ${limit} bytes (SEP-2640's limit is 16 MiB)`,
    fix: 'move large data out of the skill (a tool or a resource of its own), or raise skills({ limits: { bytes } })',
  }),
  nameNotUtf8: (path: string): Problem => ({
    message: `the name of ${path} is not valid UTF-8, so it has no resource URI`,
    fix: 'rename the file with a UTF-8 name',
  }),
  skillMdNotUtf8: (path: string): Problem => ({
    message: `${path} is not valid UTF-8 text`,
    fix: 'save SKILL.md as UTF-8',
  }),
  frontmatterMissing: (path: string, reason: string): Problem => ({
    message: `${path} has no readable YAML frontmatter: ${reason}`,
    fix: 'begin SKILL.md with a frontmatter block: ---, name: my-skill, description: What it does and when to use it, ---',
  }),
  nameInvalid: (path: string, name: string): Problem => ({
    message: `the frontmatter name ${name} of ${path} is not a skill name: 1-64 lowercase letters, digits and hyphens, no hyphen first, last or twice in a row`,
    fix: 'name: pdf-processing',
  }),
  nameNotFolder: (path: string, name: string, folder: string): Problem => ({
    message: `the frontmatter name "${name}" of ${path} differs from its folder's name "${folder}"; the Agent Skills specification asks them to be equal`,
    fix: `rename the folder to ${name}, or set name: ${folder}`,
  }),
  descriptionInvalid: (path: string): Problem => ({
    message: `the frontmatter of ${path} has no description of 1 to 1024 characters`,
    fix: 'description: What the skill does and when to use it',
  }),
  nameTaken: (name: string, first: string, second: string): Problem => ({
    message: `two skills are named ${name}: ${first} and ${second}`,
    fix: 'give each skill its own name (its skill:// URI is made from it)',
  }),
  decoratedInvalid: (className: string, found: string): Problem => ({
    message: `@Skills on ${className} names ${found}, which is not a folder`,
    fix: "@Skills('./skills') or @Skills(new URL('./skills', import.meta.url))",
  }),
  optionsInvalid: (found: string): Problem => ({
    message: `skills() was given ${found}`,
    fix: "skills({ dirs: ['./skills'], cache: { ttlMs: 60_000, scope: 'public' } })",
  }),
} as const;

export const skillErrors = {
  unknownSkill: (uri: string) => `no skill is served at ${uri}: skills/list lists the SKILL.md URIs served`,
  notDirectory: (uri: string) =>
    `${uri} is not a directory of a skill: resources/directory/read takes skill://<name> or one of its folders`,
  resourceNotFound: () => 'Resource not found',
  badCursor: (cursor: string) => `the cursor ${JSON.stringify(cursor.slice(0, 64))} was not given by this server`,
  uriMissing: () => 'params.uri must be a string',
} as const;
