/** Skill folders written to a fresh temp directory for a test, and removed after it. */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface SkillTree {
  /** The skills directory (inside `base`). */
  dir: string;
  /** The temp directory holding `dir` and anything a test puts outside it. */
  base: string;
  write(relative: string, content: string | Buffer): string;
  remove(): void;
}

export function skillMarkdown(name: string, description = `The ${name} skill.`, extra = '', body = `# ${name}\n\nDo the thing.\n`): string {
  return `---\nname: ${name}\ndescription: ${description}\n${extra}---\n${body}`;
}

/** A temp tree with `files` (paths relative to the skills directory). */
export function skillTree(files: Record<string, string | Buffer> = {}): SkillTree {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-express-skills-'));
  const dir = path.join(base, 'skills');
  fs.mkdirSync(dir);
  const write = (relative: string, content: string | Buffer): string => {
    const file = path.join(dir, relative);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, content);
    return file;
  };
  for (const [relative, content] of Object.entries(files)) write(relative, content);
  return { dir, base, write, remove: () => fs.rmSync(base, { recursive: true, force: true }) };
}

export function digestOf(content: string | Buffer): string {
  return `sha256:${createHash('sha256').update(content).digest('hex')}`;
}
