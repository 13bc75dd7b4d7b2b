import { createHash } from 'node:crypto';
import { promises as fs, type Dirent } from 'node:fs';
import path from 'node:path';
import { frontmatterProblems, parseFrontMatter, type SkillFrontmatter } from './front-matter.js';
import { mimeTypeOf } from './mime-types.js';
import { MAX_DIRECTORY_DEPTH, SKILL_MANIFEST } from './skill-constants.js';
import { isInside, readSkillFile } from './skill-file-reader.js';
import { skillUri } from './skill-uri.js';

export interface SkillLimits {
  maxFiles: number;
  maxBytes: number;
}

/** One file of a skill folder, hashed. */
export interface ScannedFile {
  /** Decoded path segments below the skill root, e.g. `['references', 'FORMS.md']`. */
  segments: string[];
  uri: string;
  size: number;
  digest: string;
  mimeType: string;
}

/** A skill folder read and validated. */
export interface ScannedSkill {
  /** Decoded segments of the skill path below the skills directory; the last one is the name. */
  pathSegments: string[];
  /** Real path of the skill folder. */
  root: string;
  frontmatter: SkillFrontmatter;
  /** `SKILL.md` first, then the other files by path. */
  files: ScannedFile[];
}

export interface DirectoryScan {
  skills: ScannedSkill[];
  /** What was found but is not served (invalid skills, links out of a skill, …), one line each. */
  problems: string[];
}

export function sha256Digest(bytes: Uint8Array): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

/** A skill-level problem: the skill is not served. */
class SkillRejected extends Error {}

/**
 * Finds every skill below `directory`: each folder with a `SKILL.md` is one, named by its path (`acme/billing/refunds`);
 * the folders inside a skill are its own files, not more skills. Names starting with a dot are skipped and
 * symbolically linked folders are not followed.
 */
export async function scanSkillsDirectory(directory: string, limits: SkillLimits): Promise<DirectoryScan> {
  const problems: string[] = [];
  const skills: ScannedSkill[] = [];
  let root: string;
  try {
    root = await fs.realpath(directory);
  } catch (error) {
    throw new Error(`The skills directory ${directory} cannot be read (${(error as Error).message}); check the "directory" option.`);
  }
  const walk = async (dir: string, segments: string[]): Promise<void> => {
    const entries = await readDirectory(dir);
    if (entries.some((entry) => entry.name === SKILL_MANIFEST && !entry.isDirectory())) {
      if (segments.length === 0) {
        problems.push(`${SKILL_MANIFEST} directly in the skills directory is not served: put each skill in a folder named after it`);
      } else {
        try {
          skills.push(await scanSkill(dir, segments, limits, problems));
        } catch (error) {
          problems.push(`${segments.join('/')}: ${(error as Error).message} (skill not served)`);
        }
        return;
      }
    }
    if (segments.length >= MAX_DIRECTORY_DEPTH) return;
    for (const entry of entries) {
      if (entry.isDirectory() && !entry.name.startsWith('.')) await walk(path.join(dir, entry.name), [...segments, entry.name]);
    }
  };
  await walk(root, []);
  return { skills, problems };
}

async function readDirectory(dir: string): Promise<Dirent[]> {
  const entries = await fs.readdir(dir, { withFileTypes: true });
  return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * Reads one skill folder: its files (within the limits), their digests, and its validated front matter. Throws a
 * problem when the skill cannot be served; files that are not served are added to `notServed`.
 */
export async function scanSkill(directory: string, pathSegments: string[], limits: SkillLimits, notServed: string[]): Promise<ScannedSkill> {
  const root = await fs.realpath(directory);
  const shown = pathSegments.join('/');
  const found: string[][] = [];
  let total = 0;
  const walk = async (dir: string, segments: string[]): Promise<void> => {
    for (const entry of await readDirectory(dir)) {
      if (entry.name.startsWith('.')) continue;
      const child = [...segments, entry.name];
      const where = `${shown}/${child.join('/')}`;
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (child.length >= MAX_DIRECTORY_DEPTH) notServed.push(`${where}: nested deeper than ${MAX_DIRECTORY_DEPTH} folders (not served)`);
        else await walk(full, child);
        continue;
      }
      let size: number;
      if (entry.isSymbolicLink()) {
        let real: string;
        try {
          real = await fs.realpath(full);
        } catch {
          notServed.push(`${where}: a broken symbolic link (not served)`);
          continue;
        }
        if (!isInside(root, real)) {
          notServed.push(`${where}: a symbolic link to a path outside the skill (not served)`);
          continue;
        }
        const stat = await fs.stat(real);
        if (!stat.isFile()) {
          notServed.push(`${where}: a symbolic link to a folder (not followed)`);
          continue;
        }
        size = stat.size;
      } else if (entry.isFile()) {
        size = (await fs.stat(full)).size;
      } else {
        continue;
      }
      found.push(child);
      if (found.length > limits.maxFiles) throw new SkillRejected(`it has more than ${limits.maxFiles} files (maxFilesPerSkill)`);
      total += size;
      if (total > limits.maxBytes) throw new SkillRejected(`its files add up to more than ${limits.maxBytes} bytes (maxBytesPerSkill)`);
    }
  };
  await walk(root, []);
  const manifestIndex = found.findIndex((segments) => segments.length === 1 && segments[0] === SKILL_MANIFEST);
  if (manifestIndex < 0) throw new SkillRejected(`${SKILL_MANIFEST} is not a regular file inside the skill`);
  found.unshift(...found.splice(manifestIndex, 1));

  const files: ScannedFile[] = [];
  let frontmatter: Record<string, unknown> | undefined;
  total = 0;
  for (const segments of found) {
    const bytes = await readSkillFile(root, segments, limits.maxBytes - total);
    total += bytes.length;
    if (frontmatter === undefined) {
      try {
        frontmatter = parseFrontMatter(bytes.toString('utf8'));
      } catch (error) {
        throw new SkillRejected((error as Error).message);
      }
      const problems = frontmatterProblems(frontmatter, pathSegments[pathSegments.length - 1]);
      if (problems.length > 0) throw new SkillRejected(problems.join('; '));
    }
    files.push({
      segments,
      uri: skillUri([...pathSegments, ...segments]),
      size: bytes.length,
      digest: sha256Digest(bytes),
      mimeType: mimeTypeOf(segments[segments.length - 1]),
    });
  }
  return { pathSegments, root, frontmatter: frontmatter as SkillFrontmatter, files };
}
