/**
 * Every TypeScript block (```ts) of README.md and docs/*.md compiles against the package's source, with the
 * compiler options of the project (strict). Each block is its own module; `mcp-express` (and its subpaths) map to
 * lib/. Blocks may be snippets: the names docs use without defining them (the `server` of the page, an Express
 * `app`, a token `verifier`…) are declared once, in DOCS_PRELUDE below, with the types the docs give them; a block
 * that defines the name itself (or imports it) uses its own.
 *
 * A block that is deliberately not TypeScript the compiler can check (pseudo-code, a fragment of an object)
 * carries the marker line `<!-- docs-check: skip (reason) -->` right before its fence; the reason is required.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const root = path.join(__dirname, '..', '..');
const DOC_FILES = ['README.md', ...fs.readdirSync(path.join(root, 'docs')).filter((file) => file.endsWith('.md')).map((file) => path.join('docs', file))];
const SKIP_MARKER = /^<!--\s*docs-check:\s*skip\s*\((.+)\)\s*-->$/;

/**
 * Names the docs use as given: "the server from the example above", the request context inside a handler, and the
 * application's own helpers that an example calls (`makePlan`, `importFile`…). Library names are not here: a block
 * imports what it uses from mcp-express, so that it can be copied.
 */
const DOCS_PRELUDE = `
type Any = any;
declare global {
  // The objects of the page: the server, the Express app, the middleware, a token verifier, a Redis client, a bus.
  const server: import('mcp-express').McpServer;
  const app: import('express').Express;
  const mcp: import('mcp-express').McpRequestHandler;
  const verifier: import('mcp-express').OAuthTokenVerifier;
  const redis: import('redis').RedisClientType;
  const bus: import('mcp-express').MessageBus;
  const skills: import('mcp-express').SkillsExtension;
  const z: typeof import('zod').z;
  // Inside a handler: its context, and the values a fragment of a loop works with.
  const ctx: import('mcp-express').RequestContext;
  const file: string;
  const files: string[];
  const index: number;
  const chunks: Array<{ index: number; summary: string }>;
  // The application's own data and helpers.
  const notes: Map<string, string>;
  const handler: (...args: Any[]) => Any;
  const read: (...args: Any[]) => Any;
  function makePlan(service: string): Promise<string>;
  function importFile(file: string, signal: AbortSignal): Promise<void>;
  function collect(month: string, options: { signal: AbortSignal }): Promise<unknown>;
  function render(data: unknown, drafts: boolean): string;
  function forecast(): Promise<unknown>;
  // A store someone writes (docs/resumability.md), checked with the contract suites.
  const MyEventStore: new () => import('mcp-express').EventStore;
  const MySessionStore: new (options?: { ttlMs?: number }) => import('mcp-express').SessionStore;
}
export {};
`;

interface Block {
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  code: string;
  skipReason?: string;
}

function extractBlocks(file: string): Block[] {
  const lines = fs.readFileSync(path.join(root, file), 'utf8').split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!/^```(ts|typescript)\s*$/.test(lines[i])) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !/^```\s*$/.test(lines[i]); i++) body.push(lines[i]);
    const marker = SKIP_MARKER.exec(lines[start - 1]?.trim() ?? '');
    blocks.push({ file, line: start + 1, code: body.join('\n'), skipReason: marker?.[1] });
  }
  return blocks;
}

const blocks = DOC_FILES.flatMap(extractBlocks);

function virtualName(index: number): string {
  return path.join(root, 'spec', 'docs', `__docs_block_${index}.ts`);
}

/** Type-checks every block in one program; returns the diagnostics of each block, formatted. */
function compileBlocks(): string[][] {
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ES2022,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
    // jest's globals for the contract-suite examples (any runner with jest-style globals works).
    types: ['node', 'jest'],
    strict: true,
    esModuleInterop: true,
    skipLibCheck: true,
    noEmit: true,
    isolatedModules: false,
    baseUrl: root,
    paths: { 'mcp-express': ['./lib/index.ts'], 'mcp-express/*': ['./lib/*/index.ts'] },
  };
  const files = new Map<string, string>();
  blocks.forEach((block, index) => {
    if (!block.skipReason) files.set(virtualName(index), `${block.code}\nexport {};\n`);
  });
  const prelude = path.join(root, 'spec', 'docs', '__docs_prelude.ts');
  files.set(prelude, DOCS_PRELUDE);
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.readFile = (name) => files.get(path.resolve(name)) ?? readFile(name);
  host.fileExists = (name) => files.has(path.resolve(name)) || fileExists(name);
  host.getSourceFile = (name, language, onError, create) => {
    const text = files.get(path.resolve(name));
    return text !== undefined ? ts.createSourceFile(name, text, language, true) : getSourceFile(name, language, onError, create);
  };
  const program = ts.createProgram([...files.keys()], options, host);
  return blocks.map((block, index) => {
    if (block.skipReason) return [];
    const source = program.getSourceFile(virtualName(index))!;
    return [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)].map((diagnostic) => {
      const { line } = diagnostic.start === undefined ? { line: 0 } : source.getLineAndCharacterOfPosition(diagnostic.start);
      return `${block.file}:${block.line + 1 + line}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
    });
  });
}

let diagnostics: string[][];
beforeAll(() => {
  diagnostics = compileBlocks();
}, 120_000);

test('the docs have TypeScript blocks to check', () => {
  expect(blocks.length).toBeGreaterThan(40);
});

test('a skipped block names its reason', () => {
  for (const block of blocks.filter((b) => b.skipReason !== undefined)) expect(block.skipReason!.trim().length).toBeGreaterThan(5);
});

test.each(blocks.map((block, index) => [`${block.file}:${block.line}`, index] as const))('%s compiles', (_where, index) => {
  expect(diagnostics[index]).toEqual([]);
});
