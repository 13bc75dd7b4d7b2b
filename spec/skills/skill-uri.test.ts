import { decodeCursor, encodeCursor, encodeSegment, parseSkillUri, skillUri } from '../../lib/skills/skill-uri.js';

describe('skill URIs', () => {
  test('encodes segments so that every file name round-trips', () => {
    const segments = ['acme', 'my skill', 'notes: 100%', 'é.md'];
    const uri = skillUri(segments);
    expect(uri).toBe('skill://acme/my%20skill/notes%3A%20100%25/%C3%A9.md');
    expect(parseSkillUri(uri)).toEqual({ segments });
    expect(new URL(uri).href).toBe(uri);
    expect(encodeSegment('a:b@c')).toBe('a%3Ab%40c');
  });

  test.each([
    ['skill://pdf/../other/SKILL.md', /"\.\." path segment/],
    ['skill://pdf/%2e%2e/other/SKILL.md', /"\.\." path segment/],
    ['skill://pdf/./SKILL.md', /"\." path segment/],
    ['skill://pdf//SKILL.md', /empty path segment/],
    ['skill://pdf/a%2F..%2F..%2Fetc/passwd', /encoded slash/],
    ['skill://pdf/a%5C..%5Cx', /encoded slash or backslash/],
    ['skill://pdf/a%00b', /NUL/],
    ['skill://pdf/%E0%A4%A', /invalid percent-encoding/],
    ['skill://pdf/SKILL.md?x=1', /no query or fragment/],
    ['skill://pdf/SKILL.md#top', /no query or fragment/],
    ['file:///etc/passwd', /does not start with skill:\/\//],
  ])('refuses %s', (uri, reason) => {
    const parsed = parseSkillUri(uri);
    expect(parsed).toEqual({ invalid: expect.stringMatching(reason) });
  });

  test('cursors round-trip and foreign ones are refused', () => {
    expect(decodeCursor(encodeCursor('skill://a/SKILL.md'))).toBe('skill://a/SKILL.md');
    expect(decodeCursor('not a cursor!')).toBeUndefined();
    expect(decodeCursor('YQ=')).toBeUndefined();
  });
});
