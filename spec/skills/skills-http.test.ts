/**
 * The skills extension over real HTTP on 127.0.0.1 through mcpMiddleware: raw 2026-07-28 requests (the `_meta`
 * envelope and standard headers) for the wire, and real temp folders with real files and symbolic links.
 */
import fs from 'node:fs';
import path from 'node:path';
import { McpServer, SkillsExtension, SkillsLoadError, type SkillsExtensionOptions } from '../../lib/index.js';
import { modern, type Reply } from '../helpers/modern.js';
import { RawClient } from '../helpers/raw-client.js';
import { serve, type Served } from '../helpers/serve.js';
import { digestOf, skillMarkdown, skillTree, type SkillTree } from './skill-tree.js';

const SKILLS = 'io.modelcontextprotocol/skills';
const ICON = Buffer.from([0x00, 0x01, 0xfe, 0xff, 0x80]);

let tree: SkillTree;
let server: McpServer;
let skills: SkillsExtension;
let served: Served;

async function start(options: Partial<SkillsExtensionOptions> = {}): Promise<void> {
  server = new McpServer({ name: 'skills-spec', version: '1.0.0' });
  skills = new SkillsExtension({ directory: tree.dir, directoryRead: true, pageSize: 2, onError: () => undefined, ...options }).register(server);
  served = await serve({ server, sseKeepAlive: 0 });
}

beforeEach(() => {
  tree = skillTree({
    'alpha/SKILL.md': skillMarkdown('alpha', 'Alpha things.', 'metadata:\n  author: spec\ntags: [x, y]\n'),
    'alpha/references/guide.md': '# Guide\n',
    'alpha/assets/icon.bin': ICON,
    'acme/billing/refunds/SKILL.md': skillMarkdown('refunds'),
    'acme/billing/refunds/templates/email.md': 'Dear {{name}},\n',
    'beta/SKILL.md': skillMarkdown('beta'),
    'gamma/SKILL.md': skillMarkdown('gamma'),
    'delta/SKILL.md': skillMarkdown('delta'),
  });
});

afterEach(async () => {
  await served?.close();
  tree.remove();
});

const rpc = (method: string, params: Record<string, unknown> = {}): Promise<Reply> => modern(served.port, { method, params });

async function result(method: string, params: Record<string, unknown> = {}): Promise<any> {
  const reply = await rpc(method, params);
  if (!reply.final || !('result' in reply.final)) throw new Error(`${method} failed: ${reply.status} ${reply.text}`);
  return reply.final.result;
}

async function errorOf(method: string, params: Record<string, unknown>): Promise<{ status: number; code: number; message: string }> {
  const reply = await rpc(method, params);
  if (!reply.final?.error) throw new Error(`${method} ${JSON.stringify(params)} should fail, got ${reply.text}`);
  return { status: reply.status, code: reply.final.error.code, message: reply.final.error.message };
}

async function listAll(): Promise<{ pages: any[]; entries: any[] }> {
  const pages: any[] = [];
  let cursor: string | undefined;
  do {
    const page = await result('skills/list', cursor === undefined ? {} : { cursor });
    pages.push(page);
    cursor = page.nextCursor;
  } while (cursor !== undefined && pages.length < 20);
  return { pages, entries: pages.flatMap((page) => page.skills) };
}

describe('capability', () => {
  test('server/discover declares the extension (with directoryRead) and resources', async () => {
    await start();
    const discover = await result('server/discover');
    expect(discover.capabilities.extensions).toEqual({ [SKILLS]: { directoryRead: true } });
    expect(discover.capabilities.resources).toBeDefined();
  });

  test('without directoryRead the settings object is empty and resources/directory/read is not served', async () => {
    await start({ directoryRead: false });
    expect((await result('server/discover')).capabilities.extensions).toEqual({ [SKILLS]: {} });
    expect(await errorOf('resources/directory/read', { uri: 'skill://alpha' })).toMatchObject({ status: 404, code: -32601 });
  });
});

describe('skills/list', () => {
  test('pages of pageSize entries, in URI order, each entry whole, every page with cache hints', async () => {
    await start();
    const { pages, entries } = await listAll();
    expect(pages).toHaveLength(3);
    for (const page of pages) expect(page).toMatchObject({ resultType: 'complete', ttlMs: 0, cacheScope: 'public' });
    expect(pages.map((page) => page.skills.length)).toEqual([2, 2, 1]);
    expect(pages[2].nextCursor).toBeUndefined();
    expect(entries.map((entry) => entry.uri)).toEqual([
      'skill://acme/billing/refunds/SKILL.md',
      'skill://alpha/SKILL.md',
      'skill://beta/SKILL.md',
      'skill://delta/SKILL.md',
      'skill://gamma/SKILL.md',
    ]);
    expect(new Set(entries.map((entry) => entry.uri)).size).toBe(entries.length);
    const alpha = entries.find((entry) => entry.uri === 'skill://alpha/SKILL.md');
    expect(alpha).toEqual({
      uri: 'skill://alpha/SKILL.md',
      frontmatter: { name: 'alpha', description: 'Alpha things.', metadata: { author: 'spec' }, tags: ['x', 'y'] },
      resources: [
        { uri: 'skill://alpha/SKILL.md', digest: digestOf(fs.readFileSync(path.join(tree.dir, 'alpha/SKILL.md'))), size: fs.statSync(path.join(tree.dir, 'alpha/SKILL.md')).size },
        { uri: 'skill://alpha/assets/icon.bin', digest: digestOf(ICON), size: ICON.length },
        { uri: 'skill://alpha/references/guide.md', digest: digestOf('# Guide\n'), size: 8 },
      ],
    });
  });

  test('a cursor this server did not mint is -32602', async () => {
    await start();
    expect(await errorOf('skills/list', { cursor: 'bogus!' })).toMatchObject({ status: 400, code: -32602, message: expect.stringMatching(/Invalid cursor/) });
    expect(await errorOf('skills/list', { cursor: 42 })).toMatchObject({ status: 400, code: -32602 });
  });
});

describe('skills/get', () => {
  test('returns the entry skills/list has, with cache hints and no cursor', async () => {
    await start();
    const { entries } = await listAll();
    const got = await result('skills/get', { uri: 'skill://acme/billing/refunds/SKILL.md' });
    expect(got).toEqual({ skill: entries[0], resultType: 'complete', ttlMs: 0, cacheScope: 'public' });
  });

  test.each([
    ['skill://nope/SKILL.md'],
    ['skill://alpha'],
    ['skill://alpha/references/guide.md'],
    ['skill://acme/billing/SKILL.md'],
    ['skill://alpha/../beta/SKILL.md'],
  ])('%s is not a skill: -32602', async (uri) => {
    await start();
    expect(await errorOf('skills/get', { uri })).toMatchObject({ status: 400, code: -32602 });
  });
});

describe('skill files through resources/read', () => {
  test('SKILL.md is text/markdown and listed in resources/list with the front matter name and description', async () => {
    await start();
    const read = await result('resources/read', { uri: 'skill://alpha/SKILL.md' });
    const text = fs.readFileSync(path.join(tree.dir, 'alpha/SKILL.md'), 'utf8');
    expect(read.contents).toEqual([{ uri: 'skill://alpha/SKILL.md', mimeType: 'text/markdown', text }]);
    const { resources } = await result('resources/list');
    expect(resources).toContainEqual({ uri: 'skill://alpha/SKILL.md', name: 'alpha', description: 'Alpha things.', mimeType: 'text/markdown', size: Buffer.byteLength(text) });
    expect(resources.filter((resource: any) => resource.uri.startsWith('skill://'))).toHaveLength(5);
  });

  test('a binary file is a base64 blob whose bytes match the listed digest and size', async () => {
    await start();
    const read = await result('resources/read', { uri: 'skill://alpha/assets/icon.bin' });
    expect(read.contents).toEqual([{ uri: 'skill://alpha/assets/icon.bin', mimeType: 'application/octet-stream', blob: ICON.toString('base64') }]);
  });

  test('no URI reaches outside a skill: .., encoded traversal, absolute paths and links out are -32602', async () => {
    fs.writeFileSync(path.join(tree.base, 'secret.txt'), 'TOP SECRET');
    fs.symlinkSync(path.join(tree.base, 'secret.txt'), path.join(tree.dir, 'alpha/leak.txt'));
    await start();
    const attempts = [
      'skill://alpha/../../secret.txt',
      'skill://alpha/..%2F..%2Fsecret.txt',
      'skill://alpha/%2e%2e/%2e%2e/secret.txt',
      'skill://alpha/references/..%5C..%5Csecret.txt',
      `skill://alpha/${encodeURIComponent(path.join(tree.base, 'secret.txt'))}`,
      `skill://alpha/${path.join(tree.base, 'secret.txt')}`,
      'skill://alpha//etc/passwd',
      'skill://alpha/leak.txt',
      'skill://alpha/SKILL.md%00.txt',
    ];
    for (const uri of attempts) {
      const reply = await rpc('resources/read', { uri });
      expect({ uri, status: reply.status, code: reply.final?.error?.code }).toEqual({ uri, status: 400, code: -32602 });
      expect(reply.text).not.toContain('TOP SECRET');
    }
  });

  test('a listed file swapped for a link out of the skill after loading is refused, not followed', async () => {
    fs.writeFileSync(path.join(tree.base, 'secret.txt'), 'TOP SECRET');
    await start();
    await skills.reload();
    const guide = path.join(tree.dir, 'alpha/references/guide.md');
    fs.rmSync(guide);
    fs.symlinkSync(path.join(tree.base, 'secret.txt'), guide);
    const reply = await rpc('resources/read', { uri: 'skill://alpha/references/guide.md' });
    expect(reply.final.error).toMatchObject({ code: -32602, message: expect.stringMatching(/resolves outside its skill directory/) });
    expect(reply.text).not.toContain('TOP SECRET');
  });

  test('an unknown skill file is -32602 in 2026-07-28', async () => {
    await start();
    expect(await errorOf('resources/read', { uri: 'skill://alpha/missing.md' })).toMatchObject({ status: 400, code: -32602, message: 'Skill resource not found: skill://alpha/missing.md' });
    expect(await errorOf('resources/read', { uri: 'skill://nobody/SKILL.md' })).toMatchObject({ status: 400, code: -32602 });
    expect(await errorOf('resources/read', { uri: 'skill://alpha' })).toMatchObject({ status: 400, code: -32602 });
  });
});

describe('resources/directory/read', () => {
  test('lists the direct children of a skill folder; folders are inode/directory', async () => {
    await start({ pageSize: 10 });
    const root = await result('resources/directory/read', { uri: 'skill://alpha' });
    expect(root).toMatchObject({ resultType: 'complete', ttlMs: 0, cacheScope: 'public' });
    expect(root.nextCursor).toBeUndefined();
    expect(root.resources).toEqual([
      { uri: 'skill://alpha/SKILL.md', name: 'alpha', description: 'Alpha things.', mimeType: 'text/markdown', size: expect.any(Number) },
      { uri: 'skill://alpha/assets', name: 'assets', mimeType: 'inode/directory' },
      { uri: 'skill://alpha/references', name: 'references', mimeType: 'inode/directory' },
    ]);
    const references = await result('resources/directory/read', { uri: 'skill://alpha/references/' });
    expect(references.resources).toEqual([{ uri: 'skill://alpha/references/guide.md', name: 'guide.md', mimeType: 'text/markdown', size: 8 }]);
  });

  test('pages with a cursor that round-trips', async () => {
    await start({ pageSize: 2 });
    const first = await result('resources/directory/read', { uri: 'skill://alpha' });
    expect(first.resources).toHaveLength(2);
    const second = await result('resources/directory/read', { uri: 'skill://alpha', cursor: first.nextCursor });
    expect(second.resources.map((child: any) => child.uri)).toEqual(['skill://alpha/references']);
    expect(second.nextCursor).toBeUndefined();
  });

  test.each([['skill://alpha/SKILL.md'], ['skill://alpha/nothing'], ['skill://acme/billing'], ['skill://alpha/../beta'], ['test://elsewhere']])('%s is not a directory: -32602', async (uri) => {
    await start();
    expect(await errorOf('resources/directory/read', { uri })).toMatchObject({ status: 400, code: -32602 });
  });
});

describe('changes on disk', () => {
  test('reload() recomputes digests and sizes, adds and removes skills', async () => {
    await start();
    const before = (await result('skills/get', { uri: 'skill://alpha/SKILL.md' })).skill;
    tree.write('alpha/references/guide.md', '# Guide, second edition\n');
    tree.write('epsilon/SKILL.md', skillMarkdown('epsilon'));
    fs.rmSync(path.join(tree.dir, 'beta'), { recursive: true });
    await skills.reload();
    const after = (await result('skills/get', { uri: 'skill://alpha/SKILL.md' })).skill;
    expect(after.resources[2]).toEqual({ uri: 'skill://alpha/references/guide.md', digest: digestOf('# Guide, second edition\n'), size: 24 });
    expect(after.resources.slice(0, 2)).toEqual(before.resources.slice(0, 2));
    const uris = (await listAll()).entries.map((entry) => entry.uri);
    expect(uris).toContain('skill://epsilon/SKILL.md');
    expect(uris).not.toContain('skill://beta/SKILL.md');
  });

  test('a file that changed since loading is served as it is now and its entry is brought up to date', async () => {
    await start();
    await skills.reload();
    tree.write('alpha/references/guide.md', '# Guide (edited)\n');
    const read = await result('resources/read', { uri: 'skill://alpha/references/guide.md' });
    expect(read.contents[0].text).toBe('# Guide (edited)\n');
    const entry = (await result('skills/get', { uri: 'skill://alpha/SKILL.md' })).skill;
    expect(entry.resources[2]).toEqual({ uri: 'skill://alpha/references/guide.md', digest: digestOf('# Guide (edited)\n'), size: 17 });
  });

  test('changes are announced: resources/updated for a changed file, list_changed when skills come and go', async () => {
    await start();
    await skills.reload();
    const events: Array<{ kind: string; uri?: string }> = [];
    server.addEventListener((event) => events.push({ kind: event.kind, uri: event.resourceUri }));
    tree.write('alpha/references/guide.md', '# Guide v2\n');
    await skills.reload();
    expect(events).toEqual([{ kind: 'resourceUpdated', uri: 'skill://alpha/references/guide.md' }]);
    events.length = 0;
    tree.write('zeta/SKILL.md', skillMarkdown('zeta'));
    await skills.reload();
    expect(events).toEqual([{ kind: 'resourcesListChanged', uri: undefined }]);
    events.length = 0;
    await skills.reload();
    expect(events).toEqual([]);
  });

  test('a file deleted since loading is not found, and its skill entry no longer lists it', async () => {
    await start();
    await skills.reload();
    fs.rmSync(path.join(tree.dir, 'alpha/references/guide.md'));
    expect(await errorOf('resources/read', { uri: 'skill://alpha/references/guide.md' })).toMatchObject({ code: -32602, message: 'Skill resource not found: skill://alpha/references/guide.md' });
    const entry = (await result('skills/get', { uri: 'skill://alpha/SKILL.md' })).skill;
    expect(entry.resources.map((file: any) => file.uri)).toEqual(['skill://alpha/SKILL.md', 'skill://alpha/assets/icon.bin']);
  });

  test('a skill that outgrows the limits is no longer served; reload() rejects naming it, the others stay', async () => {
    await start({ maxBytesPerSkill: 1000 });
    await skills.reload();
    tree.write('gamma/data.txt', 'x'.repeat(2000));
    const failure = await skills.reload().then(() => undefined, (error: unknown) => error);
    expect(failure).toBeInstanceOf(SkillsLoadError);
    expect((failure as SkillsLoadError).problems).toEqual(['gamma: its files add up to more than 1000 bytes (maxBytesPerSkill) (skill not served)']);
    const uris = (await listAll()).entries.map((entry) => entry.uri);
    expect(uris).not.toContain('skill://gamma/SKILL.md');
    expect(uris).toContain('skill://delta/SKILL.md');
    expect(await errorOf('skills/get', { uri: 'skill://gamma/SKILL.md' })).toMatchObject({ code: -32602 });
  });

  test('a skill over the file limit is not served', async () => {
    tree.write('gamma/a.txt', 'a');
    tree.write('gamma/b.txt', 'b');
    await start({ maxFilesPerSkill: 2 });
    await expect(skills.reload()).rejects.toThrow(/gamma: it has more than 2 files \(maxFilesPerSkill\)/);
    expect((await listAll()).entries.map((entry) => entry.uri)).not.toContain('skill://gamma/SKILL.md');
  });
});

describe('skills defined in code', () => {
  test('are listed with resources "dynamic"; SKILL.md is built from the front matter; files come from read()', async () => {
    await start();
    const added = skills.addSkill({
      path: 'tools/weather',
      frontmatter: { name: 'weather', description: 'Forecasts: local and global.', metadata: { source: 'code' } },
      body: '# Weather\n\nSee [data](data/today.json).\n',
      read: (file) => (file === 'data/today.json' ? { text: '{"sky":"clear"}' } : file === 'logo.png' ? { blob: Uint8Array.from([1, 2, 3]) } : undefined),
    });
    expect(added.uri).toBe('skill://tools/weather/SKILL.md');
    const entry = (await result('skills/get', { uri: added.uri })).skill;
    expect(entry).toEqual({ uri: added.uri, frontmatter: { name: 'weather', description: 'Forecasts: local and global.', metadata: { source: 'code' } }, resources: 'dynamic' });
    const manifest = (await result('resources/read', { uri: added.uri })).contents[0];
    expect(manifest).toMatchObject({ mimeType: 'text/markdown', text: expect.stringMatching(/^---\nname: weather\n[\s\S]*---\n# Weather\n/) });
    expect((await result('resources/read', { uri: 'skill://tools/weather/data/today.json' })).contents).toEqual([
      { uri: 'skill://tools/weather/data/today.json', mimeType: 'application/json', text: '{"sky":"clear"}' },
    ]);
    expect((await result('resources/read', { uri: 'skill://tools/weather/logo.png' })).contents[0]).toMatchObject({ mimeType: 'image/png', blob: 'AQID' });
    expect(await errorOf('resources/read', { uri: 'skill://tools/weather/other.md' })).toMatchObject({ code: -32602 });
    expect(await errorOf('resources/read', { uri: 'skill://tools/weather/../weather/data/today.json' })).toMatchObject({ code: -32602 });
    added.remove();
    expect(await errorOf('skills/get', { uri: added.uri })).toMatchObject({ code: -32602 });
  });

  test('invalid skills are refused with a message that says what to fix', async () => {
    await start();
    expect(() => skills.addSkill({ path: 'a/b', frontmatter: { name: 'c', description: 'x' }, body: '' })).toThrow(/name "c" must equal the last segment of the skill's path, "b"/);
    expect(() => skills.addSkill({ frontmatter: { name: 'Bad', description: 'x' }, body: '' })).toThrow(/must be 1-64 lowercase letters/);
    expect(() => skills.addSkill({ path: '../up', frontmatter: { name: 'up', description: 'x' }, body: '' })).toThrow(/no empty, "." or ".." segments/);
    expect(() => skills.addSkill({ frontmatter: { name: 'm', description: 'x', metadata: { 'io.modelcontextprotocol/a': 'b' } }, body: '' })).toThrow(/reserved for MCP extensions/);
    expect(() => skills.addSkill({ frontmatter: { name: 'n', description: 'x', when: new Date(0) }, body: '' })).toThrow(/JSON values only/);
    skills.addSkill({ path: 'x/y', frontmatter: { name: 'y', description: 'x' }, body: '' });
    expect(() => skills.addSkill({ path: 'x/y/z', frontmatter: { name: 'z', description: 'x' }, body: '' })).toThrow(/overlaps the skill "x\/y"/);
  });

  test('a folder skill at the same path as one defined in code is left out and reported', async () => {
    await start();
    skills.addSkill({ path: 'alpha', frontmatter: { name: 'alpha', description: 'From code.' }, body: '' });
    await expect(skills.reload()).rejects.toThrow(/alpha: its path overlaps the skill "alpha" added with addSkill\(\)/);
    expect((await result('skills/get', { uri: 'skill://alpha/SKILL.md' })).skill.resources).toBe('dynamic');
  });
});

describe('a 2025-11-25 session', () => {
  async function session(): Promise<{ call(method: string, params: Record<string, unknown>): Promise<any> }> {
    const client = new RawClient(served.url, '2025-11-25');
    const initialize = await client.initialize();
    expect(initialize).toContain(`"extensions":{"${SKILLS}":{"directoryRead":true}}`);
    let id = 1;
    return {
      async call(method, params) {
        const { events } = await client.call({ jsonrpc: '2.0', id: ++id, method, params });
        return JSON.parse(events.find((event) => event.data)!.data!);
      },
    };
  }

  test('initialize declares the extension; skills/list and skills/get answer without cache hints', async () => {
    await start();
    const { call } = await session();
    const list = await call('skills/list', {});
    expect(list.result.skills).toHaveLength(2);
    expect(list.result.ttlMs).toBeUndefined();
    const get = await call('skills/get', { uri: 'skill://alpha/SKILL.md' });
    expect(get.result).toEqual({ skill: expect.objectContaining({ uri: 'skill://alpha/SKILL.md' }) });
    expect((await call('skills/get', { uri: 'skill://nope/SKILL.md' })).error.code).toBe(-32602);
  });

  test('an unknown skill file is -32002 (resource not found, as for other resources in 2025); an escape is -32602', async () => {
    await start();
    const { call } = await session();
    expect((await call('resources/read', { uri: 'skill://alpha/missing.md' })).error).toMatchObject({ code: -32002, data: { uri: 'skill://alpha/missing.md' } });
    expect((await call('resources/read', { uri: 'skill://alpha/../beta/SKILL.md' })).error.code).toBe(-32602);
    expect((await call('resources/read', { uri: 'skill://alpha/references/guide.md' })).result.contents[0].text).toBe('# Guide\n');
    expect((await call('resources/directory/read', { uri: 'skill://alpha/references' })).result.resources).toHaveLength(1);
  });
});

describe('options', () => {
  test('invalid limits are refused at construction, naming the option and its default', () => {
    expect(() => new SkillsExtension({ maxFilesPerSkill: 0 })).toThrow('SkillsExtension option maxFilesPerSkill must be a positive integer (default 512); got 0');
    expect(() => new SkillsExtension({ pageSize: 1.5 })).toThrow(/pageSize must be a positive integer \(default 100\)/);
  });

  test('a missing directory: requests get an empty catalog and onError hears why', async () => {
    const errors: unknown[] = [];
    tree.remove();
    await start({ directory: path.join(tree.base, 'gone'), onError: (error) => errors.push(error) });
    expect((await result('skills/list')).skills).toEqual([]);
    expect(errors).toEqual([expect.any(SkillsLoadError)]);
    expect(String((errors[0] as Error).message)).toMatch(/cannot be read/);
  });

  test('one SkillsExtension per server', async () => {
    await start();
    expect(() => skills.register(new McpServer({ name: 'other', version: '1' }))).toThrow(/already registered/);
  });
});
