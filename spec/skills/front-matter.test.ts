import { frontmatterProblems, parseFrontMatter, renderSkillMarkdown, splitFrontMatter } from '../../lib/skills/front-matter.js';

describe('splitFrontMatter', () => {
  test('takes the YAML between the first two --- lines, with a BOM and CRLF line ends', () => {
    expect(splitFrontMatter('\uFEFF---\r\nname: a\r\n---\r\nbody\r\n')).toEqual({ yaml: 'name: a\n', body: 'body\n' });
    expect(splitFrontMatter('---\nname: a\n---   \n# Title\n')).toEqual({ yaml: 'name: a\n', body: '# Title\n' });
  });

  test('refuses a file that does not open or close its front matter', () => {
    expect(() => splitFrontMatter('# no front matter\n')).toThrow(/must begin with a "---" line/);
    expect(() => splitFrontMatter('---\nname: a\n')).toThrow(/no closing "---" line/);
  });
});

describe('parseFrontMatter', () => {
  test('returns the front matter verbatim as JSON: nested maps, lists, numbers, booleans, null', () => {
    const text = '---\nname: pdf\ndescription: "Reads: PDFs"\nversion: 2\nbeta: true\nnothing: null\ntags: [a, b]\nmetadata:\n  author: me\n  when: 2024-01-01\n---\nbody';
    expect(parseFrontMatter(text)).toEqual({
      name: 'pdf',
      description: 'Reads: PDFs',
      version: 2,
      beta: true,
      nothing: null,
      tags: ['a', 'b'],
      metadata: { author: 'me', when: '2024-01-01' },
    });
  });

  test('refuses invalid YAML, duplicate keys, non-mappings and values JSON cannot carry', () => {
    expect(() => parseFrontMatter('---\nname: [unclosed\n---\n')).toThrow(/YAML front matter is invalid/);
    expect(() => parseFrontMatter('---\nname: a\nname: b\n---\n')).toThrow(/YAML front matter is invalid/);
    expect(() => parseFrontMatter('---\n- a\n- b\n---\n')).toThrow(/must be a mapping/);
    expect(() => parseFrontMatter('---\nname: a\nlimit: .inf\n---\n')).toThrow(/front matter.limit is Infinity/);
    expect(() => parseFrontMatter('---\nname: a\n__proto__: x\n---\n')).toThrow(/__proto__/);
  });

  test('reads back what renderSkillMarkdown wrote', () => {
    const frontmatter = { name: 'x', description: 'Has: colons, "quotes" and\nnew lines', metadata: { a: '1' }, list: [1, 'two', null] };
    expect(parseFrontMatter(renderSkillMarkdown(frontmatter, '# Body\n'))).toEqual(frontmatter);
  });
});

describe('frontmatterProblems', () => {
  const valid = { name: 'pdf-tools', description: 'Works with PDFs' };

  test('accepts a valid front matter', () => {
    expect(frontmatterProblems(valid, 'pdf-tools')).toEqual([]);
    expect(frontmatterProblems({ ...valid, name: 'a'.repeat(64) }, 'a'.repeat(64))).toEqual([]);
  });

  test.each([
    ['Pdf', 'uppercase'],
    ['-pdf', 'leading hyphen'],
    ['pdf-', 'trailing hyphen'],
    ['pdf--tools', 'double hyphen'],
    ['pdf_tools', 'underscore'],
    ['a'.repeat(65), '65 characters'],
  ])('refuses the name %s (%s)', (name) => {
    expect(frontmatterProblems({ ...valid, name }, name)).toEqual([expect.stringMatching(/must be 1-64 lowercase letters, digits and single hyphens/)]);
  });

  test('requires the name to equal the last path segment, and a description', () => {
    expect(frontmatterProblems(valid, 'other')).toEqual([expect.stringMatching(/must equal the last segment of the skill's path, "other"/)]);
    expect(frontmatterProblems({ name: 'pdf-tools' }, 'pdf-tools')).toEqual(['front matter has no "description"']);
    expect(frontmatterProblems({ description: 'x' }, 'pdf-tools')).toEqual(['front matter has no "name"']);
    expect(frontmatterProblems({ ...valid, description: 'x'.repeat(1025) }, 'pdf-tools')).toEqual([expect.stringMatching(/longer than 1024/)]);
  });

  test('checks compatibility and metadata, and reserves the io.modelcontextprotocol/ metadata prefix', () => {
    expect(frontmatterProblems({ ...valid, compatibility: '' }, 'pdf-tools')).toEqual([expect.stringMatching(/compatibility must be a string/)]);
    expect(frontmatterProblems({ ...valid, metadata: { version: 2 } }, 'pdf-tools')).toEqual(['metadata must map strings to strings']);
    expect(frontmatterProblems({ ...valid, metadata: { 'io.modelcontextprotocol/x': 'y', mine: 'z' } }, 'pdf-tools')).toEqual([
      expect.stringMatching(/metadata key "io.modelcontextprotocol\/x" uses the prefix io.modelcontextprotocol\/, reserved/),
    ]);
  });
});
