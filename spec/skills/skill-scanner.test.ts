import fs from 'node:fs';
import path from 'node:path';
import { readSkillFile, SkillFileError } from '../../lib/skills/skill-file-reader.js';
import { scanSkillsDirectory } from '../../lib/skills/skill-scanner.js';
import { digestOf, skillMarkdown, skillTree, type SkillTree } from './skill-tree.js';

const LIMITS = { maxFiles: 512, maxBytes: 16 * 1024 * 1024 };
let tree: SkillTree;

afterEach(() => tree?.remove());

describe('scanSkillsDirectory', () => {
  test('finds every folder with a SKILL.md, nested paths included, with digests, sizes and MIME types', async () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff]);
    tree = skillTree({
      'pdf/SKILL.md': skillMarkdown('pdf'),
      'pdf/references/FORMS.md': '# Forms\n',
      'pdf/scripts/fill.py': 'print("hi")\n',
      'pdf/assets/logo.png': png,
      'pdf/.hidden': 'never served',
      'acme/billing/refunds/SKILL.md': skillMarkdown('refunds'),
      'acme/README.md': 'not a skill: no SKILL.md beside it',
    });
    const { skills, problems } = await scanSkillsDirectory(tree.dir, LIMITS);
    expect(problems).toEqual([]);
    expect(skills.map((skill) => skill.pathSegments.join('/')).sort()).toEqual(['acme/billing/refunds', 'pdf']);
    const pdf = skills.find((skill) => skill.pathSegments[0] === 'pdf')!;
    expect(pdf.frontmatter).toEqual({ name: 'pdf', description: 'The pdf skill.' });
    expect(pdf.files.map((file) => [file.uri, file.mimeType, file.size, file.digest])).toEqual([
      ['skill://pdf/SKILL.md', 'text/markdown', Buffer.byteLength(skillMarkdown('pdf')), digestOf(skillMarkdown('pdf'))],
      ['skill://pdf/assets/logo.png', 'image/png', png.length, digestOf(png)],
      ['skill://pdf/references/FORMS.md', 'text/markdown', 8, digestOf('# Forms\n')],
      ['skill://pdf/scripts/fill.py', 'text/x-python', 12, digestOf('print("hi")\n')],
    ]);
  });

  test('a skill whose front matter is invalid, or whose name differs from its folder, is left out and reported', async () => {
    tree = skillTree({
      'good/SKILL.md': skillMarkdown('good'),
      'renamed/SKILL.md': skillMarkdown('original'),
      'broken/SKILL.md': '---\nname: broken\ndescription: [unclosed\n---\n',
      'reserved/SKILL.md': skillMarkdown('reserved', 'Reserved keys.', 'metadata:\n  io.modelcontextprotocol/x: "1"\n'),
      'bare/SKILL.md': '# no front matter\n',
    });
    const { skills, problems } = await scanSkillsDirectory(tree.dir, LIMITS);
    expect(skills.map((skill) => skill.pathSegments.join('/'))).toEqual(['good']);
    expect(problems).toEqual([
      expect.stringMatching(/^bare: SKILL.md must begin with a "---" line.*\(skill not served\)$/),
      expect.stringMatching(/^broken: the YAML front matter is invalid/),
      expect.stringMatching(/^renamed: name "original" must equal the last segment of the skill's path, "renamed"/),
      expect.stringMatching(/^reserved: metadata key "io.modelcontextprotocol\/x" uses the prefix/),
    ]);
  });

  test('a skill over the file limit or the byte limit is left out and the problem names the option', async () => {
    tree = skillTree({
      'few/SKILL.md': skillMarkdown('few'),
      'few/a.txt': 'a',
      'many/SKILL.md': skillMarkdown('many'),
      'many/a.txt': 'a',
      'many/b.txt': 'b',
      'many/c.txt': 'c',
      'big/SKILL.md': skillMarkdown('big'),
      'big/data.bin': Buffer.alloc(300),
    });
    const { skills, problems } = await scanSkillsDirectory(tree.dir, { maxFiles: 3, maxBytes: 200 });
    expect(skills.map((skill) => skill.pathSegments.join('/'))).toEqual(['few']);
    expect(problems).toEqual([
      'big: its files add up to more than 200 bytes (maxBytesPerSkill) (skill not served)',
      'many: it has more than 3 files (maxFilesPerSkill) (skill not served)',
    ]);
  });

  test('serves a symbolic link to a file inside the skill, never one that leads outside it or to a folder', async () => {
    tree = skillTree({ 'pdf/SKILL.md': skillMarkdown('pdf'), 'pdf/docs/real.md': 'real\n', 'other/SKILL.md': skillMarkdown('other') });
    const secret = path.join(tree.base, 'secret.txt');
    fs.writeFileSync(secret, 'top secret\n');
    fs.symlinkSync(path.join(tree.dir, 'pdf/docs/real.md'), path.join(tree.dir, 'pdf/alias.md'));
    fs.symlinkSync(secret, path.join(tree.dir, 'pdf/escape.txt'));
    fs.symlinkSync('../other/SKILL.md', path.join(tree.dir, 'pdf/sibling.md'));
    fs.symlinkSync(path.join(tree.dir, 'pdf/docs'), path.join(tree.dir, 'pdf/docs-link'));
    fs.symlinkSync(path.join(tree.base), path.join(tree.dir, 'linked-skills'));
    const { skills, problems } = await scanSkillsDirectory(tree.dir, LIMITS);
    const pdf = skills.find((skill) => skill.pathSegments[0] === 'pdf')!;
    expect(pdf.files.map((file) => file.segments.join('/'))).toEqual(['SKILL.md', 'alias.md', 'docs/real.md']);
    expect(pdf.files[1].digest).toBe(digestOf('real\n'));
    expect(problems).toEqual([
      'pdf/docs-link: a symbolic link to a folder (not followed)',
      'pdf/escape.txt: a symbolic link to a path outside the skill (not served)',
      'pdf/sibling.md: a symbolic link to a path outside the skill (not served)',
    ]);
    expect(skills.map((skill) => skill.pathSegments.join('/')).sort()).toEqual(['other', 'pdf']);
  });

  test('a missing directory is an error that names the option', async () => {
    await expect(scanSkillsDirectory('/nonexistent/skills', LIMITS)).rejects.toThrow(/The skills directory \/nonexistent\/skills cannot be read .*check the "directory" option/);
  });
});

describe('readSkillFile', () => {
  test('reads a file inside the root and refuses links out of it, folders and files over the limit', async () => {
    tree = skillTree({ 'pdf/SKILL.md': skillMarkdown('pdf'), 'pdf/big.txt': 'x'.repeat(100) });
    const root = fs.realpathSync(path.join(tree.dir, 'pdf'));
    fs.writeFileSync(path.join(tree.base, 'outside.txt'), 'outside');
    fs.symlinkSync(path.join(tree.base, 'outside.txt'), path.join(root, 'link.txt'));
    await expect(readSkillFile(root, ['SKILL.md'], 1000)).resolves.toEqual(Buffer.from(skillMarkdown('pdf')));
    const failure = (segments: string[], limit = 1000) => readSkillFile(root, segments, limit).then(() => 'read', (error: SkillFileError) => error.reason);
    expect(await failure(['link.txt'])).toBe('outside');
    expect(await failure(['..', 'other'])).toBe('missing');
    expect(await failure(['..', '..', 'outside.txt'])).toBe('outside');
    expect(await failure(['missing.md'])).toBe('missing');
    expect(await failure(['big.txt'], 50)).toBe('too-large');
  });
});
