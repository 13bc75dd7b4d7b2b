/**
 * The layers keep to their seams: the HTTP layer knows session managers only through the `SessionManager`
 * interface (and the error classes of that contract), and no module imports itself back through a cycle, types
 * included (the stores never reach into the session layer).
 */
import fs from 'node:fs';
import path from 'node:path';

const LIB = path.join(__dirname, '../../lib');

function libFiles(dir = LIB): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return libFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** Relative imports and re-exports of a file (type-only ones included), resolved to files. */
function importsOf(file: string): string[] {
  const source = fs.readFileSync(file, 'utf8');
  const found: string[] = [];
  for (const match of source.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s+['"](\.{1,2}\/[^'"]+)['"]/g)) {
    const target = path.join(path.dirname(file), match[1]).replace(/\.js$/, '.ts');
    if (fs.existsSync(target)) found.push(target);
  }
  return found;
}

const relative = (file: string) => path.relative(LIB, file);

test('lib/http imports no concrete session manager', () => {
  const concrete = ['session/local-session-manager.ts', 'session/never-session-manager.ts', 'session/local-session.ts', 'session/outbound-stream.ts'];
  const offending = libFiles(path.join(LIB, 'http')).flatMap((file) =>
    importsOf(file)
      .map(relative)
      .filter((target) => concrete.includes(target))
      .map((target) => `${relative(file)} → ${target}`),
  );
  expect(offending).toEqual([]);
});

test('the stores import nothing from the session layer', () => {
  const offending = [...libFiles(path.join(LIB, 'store')), ...libFiles(path.join(LIB, 'redis'))].flatMap((file) =>
    importsOf(file)
      .map(relative)
      .filter((target) => target.startsWith('session/'))
      .map((target) => `${relative(file)} → ${target}`),
  );
  expect(offending).toEqual([]);
});

test('no import cycles between modules, type-only imports included', () => {
  const graph = new Map(libFiles().map((file) => [file, importsOf(file)]));
  const cycles: string[][] = [];
  // Tarjan's strongly connected components: any component of more than one module is a cycle.
  let index = 0;
  const stack: string[] = [];
  const onStack = new Set<string>();
  const indices = new Map<string, number>();
  const lowLinks = new Map<string, number>();
  const visit = (node: string) => {
    indices.set(node, index);
    lowLinks.set(node, index);
    index++;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!indices.has(next)) {
        visit(next);
        lowLinks.set(node, Math.min(lowLinks.get(node)!, lowLinks.get(next)!));
      } else if (onStack.has(next)) {
        lowLinks.set(node, Math.min(lowLinks.get(node)!, indices.get(next)!));
      }
    }
    if (lowLinks.get(node) === indices.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(relative(member));
      } while (member !== node);
      if (component.length > 1) cycles.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!indices.has(node)) visit(node);
  expect(cycles).toEqual([]);
});
