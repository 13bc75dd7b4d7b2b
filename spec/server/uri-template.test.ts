/**
 * UriTemplate: what each operator matches and does not, comma lists, prefix and suffix literals, percent-decoding,
 * adjacent variables, and that matching stays linear in the URI's length (no regular-expression backtracking).
 */
import { UriTemplate } from '../../lib/server/uri-template.js';

const match = (template: string, uri: string) => new UriTemplate(template).match(uri);

describe('simple {var}', () => {
  test.each([
    ['test://template/{id}/data', 'test://template/123/data', { id: '123' }],
    ['test://template/{id}/data', 'test://template//data', { id: '' }],
    ['greeting://{name}', 'greeting://alice', { name: 'alice' }],
    ['greeting://{name}', 'greeting://', { name: '' }],
    ['greeting://{name}', 'greeting://a.b-c_d~e:f@g=h;i+j', { name: 'a.b-c_d~e:f@g=h;i+j' }],
    ['{scheme}://host', 'https://host', { scheme: 'https' }],
  ])('%s matches %s', (template, uri, expected) => {
    expect(match(template, uri)).toEqual(expected);
  });

  test.each([
    ['test://template/{id}/data', 'test://template/1/2/data'], // a value holds no "/"
    ['test://template/{id}/data', 'test://template/123/datax'], // the suffix must end the URI
    ['test://template/{id}/data', 'xtest://template/123/data'], // the prefix must start it
    ['test://template/{id}/data', 'test://template/123'],
    ['greeting://{name}', 'greeting://a/b'],
    ['greeting://{name}', 'greeting://a?b'],
    ['greeting://{name}', 'greeting://a#b'],
    ['greeting://{name}', 'greeting://a&b'],
    ['greeting://{name}', 'greeting://a,b'],
    ['greeting://{name}', 'greeting:/alice'],
  ])('%s does not match %s', (template, uri) => {
    expect(match(template, uri)).toBeUndefined();
  });
});

describe('reserved {+var}', () => {
  test.each([
    ['file:///{+path}', 'file:///a/b/c.txt', { path: 'a/b/c.txt' }],
    ['file:///{+path}', 'file:///a/b?x=1&y=2,3#frag', { path: 'a/b?x=1&y=2,3#frag' }],
    ['file:///{+path}', 'file:///', { path: '' }],
    // Literals after a reserved variable are found leftmost: the earlier variable is as short as it can be.
    ['file:///{+dir}/{+file}.md', 'file:///docs/guide/intro.md', { dir: 'docs', file: 'guide/intro' }],
    ['file:///{+dir}/{+file}.md', 'file:///a/b.md.md', { dir: 'a', file: 'b.md' }],
    ['file:///{+dir}/{+file}.md', 'file:////.md', { dir: '', file: '' }],
    // …but not so short that what follows cannot match: a simple {name} holds no "/".
    ['file:///{+dir}/{name}.md', 'file:///a/b/c.md', { dir: 'a/b', name: 'c' }],
    ['file:///{+dir}/{name}-{+rest}', 'file:///a-b/c-d/e', { dir: 'a-b', name: 'c', rest: 'd/e' }],
  ])('%s matches %s', (template, uri, expected) => {
    expect(match(template, uri)).toEqual(expected);
  });

  test.each([
    ['file:///{+path}', 'file://a'],
    ['file:///{+dir}/{+file}.md', 'file:///a.md'], // no "/" between dir and file
    ['file:///{+dir}/{+file}.md', 'file:///a/b.txt'],
    ['file:///{+dir}/{+file}.md', 'file:///a/b.mdx'],
    ['file:///{+dir}/{name}.md', 'file:///a/b/.m'],
    // As with the RegExp `.` it replaces, a reserved value holds no line terminator.
    ['file:///{+path}', 'file:///a\nb'],
    ['file:///{+path}', 'file:///a\u2028b'],
  ])('%s does not match %j', (template, uri) => {
    expect(match(template, uri)).toBeUndefined();
  });
});

describe('fragment {#var}', () => {
  test.each([
    ['doc://{page}{#section}', 'doc://intro#usage', { page: 'intro', section: 'usage' }],
    ['doc://{page}{#section}', 'doc://intro#a/b#c?d', { page: 'intro', section: 'a/b#c?d' }],
    ['doc://x/{#frag}', 'doc://x/#', { frag: '' }],
    ['doc://{+path}{#frag}', 'doc://a/b#c#d', { path: 'a/b', frag: 'c#d' }],
  ])('%s matches %s', (template, uri, expected) => {
    expect(match(template, uri)).toEqual(expected);
  });

  test.each([
    ['doc://{page}{#section}', 'doc://intro'], // the "#" the operator adds is required
    ['doc://{page}{#section}', 'doc://a/b#c'],
    ['doc://x/{#frag}', 'doc://x/frag'],
  ])('%s does not match %s', (template, uri) => {
    expect(match(template, uri)).toBeUndefined();
  });
});

describe('comma lists {a,b}', () => {
  test.each([
    ['map://{x,y}', 'map://1,2', { x: '1', y: '2' }],
    ['map://{x,y}', 'map://,', { x: '', y: '' }],
    ['map://{x,y}/tile', 'map://10,20/tile', { x: '10', y: '20' }],
    ['map://{x,y}', 'map://1%2C5,2', { x: '1,5', y: '2' }],
    ['search://{+q,r}', 'search://a,b,c', { q: 'a', r: 'b,c' }],
    ['search://{+q,r}', 'search://a/b,c/d', { q: 'a/b', r: 'c/d' }],
    ['page://p{#a,b}', 'page://p#1,2', { a: '1', b: '2' }],
  ])('%s matches %s', (template, uri, expected) => {
    expect(match(template, uri)).toEqual(expected);
  });

  test.each([
    ['map://{x,y}', 'map://1'],
    ['map://{x,y}', 'map://1,2,3'],
    ['map://{x,y}', 'map://1/2'],
    ['search://{+q,r}', 'search://abc'],
    ['page://p{#a,b}', 'page://p1,2'],
  ])('%s does not match %s', (template, uri) => {
    expect(match(template, uri)).toBeUndefined();
  });

  test('variableNames lists every name of every expression, in order', () => {
    expect(new UriTemplate('x://{a}/{+b,c}{#d,e}').variableNames).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(new UriTemplate('test://static').variableNames).toEqual([]);
  });
});

describe('adjacent variables', () => {
  test.each([
    // A simple variable takes as much as it can; the next ones follow.
    ['id://{a}{b}', 'id://xyz', { a: 'xyz', b: '' }],
    ['id://{a}{b}{c}', 'id://xyz', { a: 'xyz', b: '', c: '' }],
    ['id://{a}{b}/{c}', 'id://xy/z', { a: 'xy', b: '', c: 'z' }],
    ['id://{a}{+b}', 'id://xy/z', { a: 'xy', b: '/z' }],
    // A reserved variable takes as little as the rest allows.
    ['id://{+a}{b}', 'id://x/y/z', { a: 'x/y/', b: 'z' }],
    ['id://{+a}{+b}', 'id://x/y', { a: '', b: 'x/y' }],
  ])('%s matches %s', (template, uri, expected) => {
    expect(match(template, uri)).toEqual(expected);
  });

  test.each([
    ['id://{a}{b}', 'id://x/y'],
    ['id://{a}{b}{c}', 'id://x,y'],
    ['id://{a}{b}{c}.md', 'id://x?.md'],
  ])('%s does not match %s', (template, uri) => {
    expect(match(template, uri)).toBeUndefined();
  });
});

describe('prefix and suffix literals', () => {
  test('a template without variables matches only itself', () => {
    expect(match('test://static', 'test://static')).toEqual({});
    expect(match('test://static', 'test://static/')).toBeUndefined();
    expect(match('test://static', 'test://stati')).toBeUndefined();
  });

  test('prefix and suffix may not overlap', () => {
    expect(match('ab{x}ba', 'aba')).toBeUndefined();
    expect(match('ab{x}ba', 'abba')).toEqual({ x: '' });
    expect(match('ab{x}ba', 'ab-ba')).toEqual({ x: '-' });
  });

  test('literal text is matched as it is, including RegExp metacharacters and unknown operators', () => {
    expect(match('a.b*(c)|[d]^$\\/{x}', 'a.b*(c)|[d]^$\\/1')).toEqual({ x: '1' });
    expect(match('a.b*(c)|[d]^$\\/{x}', 'aXb*(c)|[d]^$\\/1')).toBeUndefined();
    expect(match('q://{?x}', 'q://{?x}')).toEqual({});
    expect(match('q://{?x}', 'q://1')).toBeUndefined();
  });
});

describe('percent-decoding', () => {
  test.each([
    ['greeting://{name}', 'greeting://J%C3%BCrgen%20M', { name: 'Jürgen M' }],
    ['greeting://{name}', 'greeting://a%2Fb%3Fc', { name: 'a/b?c' }], // encoded, the delimiters are allowed
    ['file:///{+path}', 'file:///my%20docs/a%2Bb', { path: 'my docs/a+b' }],
    ['doc://x{#frag}', 'doc://x#%E2%9C%93', { frag: '✓' }],
    // A value that does not decode is returned as it was.
    ['greeting://{name}', 'greeting://100%', { name: '100%' }],
    ['greeting://{name}', 'greeting://%E0%A4%A', { name: '%E0%A4%A' }],
    ['map://{x,y}', 'map://%zz,%41', { x: '%zz', y: 'A' }],
  ])('%s matches %s', (template, uri, expected) => {
    expect(match(template, uri)).toEqual(expected);
  });

  test('expand then match gives the values back', () => {
    const cases: Array<[string, Record<string, string>]> = [
      ['test://template/{id}/data', { id: 'a b/c?d' }],
      ['file:///{+dir}/{name}.md', { dir: 'docs/guide', name: 'read me' }],
      ['doc://{page}{#section}', { page: 'p&q', section: 'part 2' }],
      ['map://{x,y}', { x: '1,5', y: '-2' }],
    ];
    for (const [template, values] of cases) {
      const uriTemplate = new UriTemplate(template);
      expect(uriTemplate.match(uriTemplate.expand(values))).toEqual(values);
    }
  });
});

// A backtracking matcher takes minutes (quadratic or cubic in the URI's length) on these; a linear one well under
// a second. Nothing here measures time: a regression shows up as the test timing out.
describe('linear time on adversarial 1 MB URIs', () => {
  const SIZE = 1 << 20;
  const GENEROUS = 120_000;

  test(
    'file:///{+dir}/{+file}.md',
    () => {
      const template = new UriTemplate('file:///{+dir}/{+file}.md');
      expect(template.match(`file:///${'/'.repeat(SIZE)}x`)).toBeUndefined();
      expect(template.match(`file:///${'/'.repeat(SIZE)}\n.md`)).toBeUndefined(); // fails only at the last character
      expect(template.match(`file:///${'a/'.repeat(SIZE / 2)}\n.md`)).toBeUndefined();
      const slashes = template.match(`file:///${'/'.repeat(SIZE)}.md`);
      expect(slashes).toEqual({ dir: '', file: '/'.repeat(SIZE - 1) });
      const path = template.match(`file:///${'a/'.repeat(SIZE / 2)}b.md`);
      expect(path?.dir).toBe('a');
      expect(path?.file).toBe(`${'a/'.repeat(SIZE / 2 - 1)}b`);
    },
    GENEROUS,
  );

  test(
    'file:///{+dir}/{name}.md',
    () => {
      const template = new UriTemplate('file:///{+dir}/{name}.md');
      expect(template.match(`file:///${'a/'.repeat(SIZE / 2)}/.md`)).toEqual({ dir: 'a/'.repeat(SIZE / 2), name: '' });
      expect(template.match(`file:///${'a/'.repeat(SIZE / 2)}b?.md`)).toBeUndefined();
    },
    GENEROUS,
  );

  test(
    'three adjacent simple variables',
    () => {
      const template = new UriTemplate('id://{a}{b}{c}');
      expect(template.match(`id://${'a'.repeat(SIZE)}/`)).toBeUndefined();
      expect(template.match(`id://${'a'.repeat(SIZE)}`)).toEqual({ a: 'a'.repeat(SIZE), b: '', c: '' });
      const suffixed = new UriTemplate('id://{a}{b}{c}.md');
      expect(suffixed.match(`id://${'a'.repeat(SIZE)}&.md`)).toBeUndefined();
    },
    GENEROUS,
  );

  test(
    'three adjacent reserved variables',
    () => {
      const template = new UriTemplate('id://{+a}{+b}{+c}/end');
      expect(template.match(`id://${'/'.repeat(SIZE)}\n/end`)).toBeUndefined();
      expect(template.match(`id://${'/'.repeat(SIZE)}/end`)).toEqual({ a: '', b: '', c: '/'.repeat(SIZE) });
    },
    GENEROUS,
  );
});
