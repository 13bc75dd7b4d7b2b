import { parseDocument, stringify } from 'yaml';

/** The front matter of a `SKILL.md`: `name` and `description`, plus whatever else the author wrote. */
export interface SkillFrontmatter {
  name: string;
  description: string;
  [key: string]: unknown;
}

/** Agent Skills naming rules: 1–64 lowercase letters, digits and single hyphens, not at either end. */
export const SKILL_NAME_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const MAX_NAME_LENGTH = 64;
const MAX_DESCRIPTION_LENGTH = 1024;
const MAX_COMPATIBILITY_LENGTH = 500;
/** `metadata` keys with this prefix are reserved for MCP extensions; none is defined yet. */
export const RESERVED_METADATA_PREFIX = 'io.modelcontextprotocol/';
const MAX_DEPTH = 32;

/**
 * Splits a `SKILL.md` into its YAML front matter and body: an optional BOM, a first line `---`, the YAML, a line
 * `---` (trailing blanks allowed). CRLF line ends are accepted. Throws when there is no such block.
 */
export function splitFrontMatter(markdown: string): { yaml: string; body: string } {
  const text = (markdown.charCodeAt(0) === 0xfeff ? markdown.slice(1) : markdown).replace(/\r\n/g, '\n');
  if (!text.startsWith('---\n')) throw new Error('SKILL.md must begin with a "---" line opening its YAML front matter');
  const rest = text.slice(4);
  const close = /^---[ \t]*$/m.exec(rest);
  if (!close) throw new Error('the YAML front matter of SKILL.md has no closing "---" line');
  return { yaml: rest.slice(0, close.index), body: rest.slice(close.index + close[0].length).replace(/^\n/, '') };
}

/**
 * Parses the front matter with the `yaml` package (YAML 1.2 core schema, unique keys) into the JSON object an
 * entry carries verbatim. Throws on YAML errors and on values JSON cannot carry.
 */
export function parseFrontMatter(markdown: string): Record<string, unknown> {
  const { yaml } = splitFrontMatter(markdown);
  const document = parseDocument(yaml, { schema: 'core', uniqueKeys: true, prettyErrors: false });
  if (document.errors.length > 0) throw new Error(`the YAML front matter is invalid: ${document.errors[0].message}`);
  const value: unknown = document.toJS({ maxAliasCount: 100 });
  if (!isPlainObject(value)) throw new Error('the YAML front matter must be a mapping of keys to values');
  const problem = jsonProblem(value, 'front matter', 0);
  if (problem) throw new Error(problem);
  return value;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.getPrototypeOf(value) === Object.prototype;
}

/** Why `value` does not survive a JSON round trip unchanged, if it does not. */
export function jsonProblem(value: unknown, at: string, depth: number): string | undefined {
  if (depth > MAX_DEPTH) return `${at} is nested deeper than ${MAX_DEPTH} levels`;
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return undefined;
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : `${at} is ${value}, which JSON cannot carry; quote it`;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      const problem = jsonProblem(value[index], `${at}[${index}]`, depth + 1);
      if (problem) return problem;
    }
    return undefined;
  }
  if (isPlainObject(value)) {
    for (const key of Object.keys(value)) {
      if (key === '__proto__') return `${at} has a "__proto__" key, which clients refuse`;
      const problem = jsonProblem(value[key], `${at}.${key}`, depth + 1);
      if (problem) return problem;
    }
    return undefined;
  }
  return `${at} is a ${typeof value === 'object' ? (value as object).constructor?.name ?? 'object' : typeof value}, which JSON cannot carry; quote it`;
}

function characters(text: string): number {
  return [...text].length;
}

/**
 * What is wrong with a skill's front matter, given the name its path requires: the Agent Skills rules for `name`,
 * `description`, `compatibility` and `metadata`, and the reserved `metadata` prefix. Empty when it is valid.
 */
export function frontmatterProblems(frontmatter: Record<string, unknown>, expectedName: string): string[] {
  const problems: string[] = [];
  const { name, description, compatibility, metadata } = frontmatter;
  if (typeof name !== 'string' || name.length === 0) problems.push('front matter has no "name"');
  else if (name.length > MAX_NAME_LENGTH || !SKILL_NAME_PATTERN.test(name)) {
    problems.push(`name "${name}" must be 1-${MAX_NAME_LENGTH} lowercase letters, digits and single hyphens, not starting or ending with a hyphen`);
  } else if (name !== expectedName) problems.push(`name "${name}" must equal the last segment of the skill's path, "${expectedName}" (rename one of them)`);
  if (typeof description !== 'string' || description.length === 0) problems.push('front matter has no "description"');
  else if (characters(description) > MAX_DESCRIPTION_LENGTH) problems.push(`description is longer than ${MAX_DESCRIPTION_LENGTH} characters`);
  if (compatibility !== undefined && (typeof compatibility !== 'string' || compatibility.length === 0 || characters(compatibility) > MAX_COMPATIBILITY_LENGTH)) {
    problems.push(`compatibility must be a string of 1-${MAX_COMPATIBILITY_LENGTH} characters`);
  }
  if (metadata !== undefined) {
    if (!isPlainObject(metadata) || Object.values(metadata).some((item) => typeof item !== 'string')) {
      problems.push('metadata must map strings to strings');
    } else {
      for (const key of Object.keys(metadata)) {
        if (key.startsWith(RESERVED_METADATA_PREFIX)) problems.push(`metadata key "${key}" uses the prefix ${RESERVED_METADATA_PREFIX}, reserved for MCP extensions`);
      }
    }
  }
  return problems;
}

/** The text of a `SKILL.md` for front matter given as an object (dynamic skills). */
export function renderSkillMarkdown(frontmatter: Record<string, unknown>, body: string): string {
  return `---\n${stringify(frontmatter, { schema: 'core' })}---\n${body}`;
}
