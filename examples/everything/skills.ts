import fs from 'node:fs';
import path from 'node:path';
import { SkillsExtension, type McpServer } from 'mcp-express';

/**
 * The example's skills folder: `skills/` beside this file in the source tree. Built into
 * dist/examples/everything, the example reads the source tree's copy (three folders up), so nothing is copied.
 */
function skillsDirectory(): string {
  const beside = path.join(__dirname, 'skills');
  return fs.existsSync(beside) ? beside : path.resolve(__dirname, '../../../examples/everything/skills');
}

/**
 * Skills (SEP-2640): `pdf-processing` (text, a script and a binary file, three folders), the nested
 * `acme/billing/refund-policy`, and `generated/release-notes`, defined in code with `resources: "dynamic"`.
 * `resources/directory/read` is on.
 */
export function registerSkills(server: McpServer): SkillsExtension {
  const skills = new SkillsExtension({ directory: skillsDirectory(), directoryRead: true });
  skills.addSkill({
    path: 'generated/release-notes',
    frontmatter: { name: 'release-notes', description: 'Write the release notes of this server from its change log.' },
    body: '# Release notes\n\nRead [CHANGELOG.md](CHANGELOG.md) and summarise the changes since the last release, newest first.\n',
    read: (file) => (file === 'CHANGELOG.md' ? { text: `# Changes\n\n- ${new Date().toISOString().slice(0, 10)}: skills served from a folder and from code.\n` } : undefined),
  });
  return skills.register(server);
}
