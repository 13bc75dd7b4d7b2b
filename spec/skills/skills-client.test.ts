/**
 * The example's skills read through the official SDK v2 client's SkillsClient (@modelcontextprotocol/client
 * ext/skills), which verifies every file against its entry (size, sha256 digest, and for SKILL.md the front
 * matter): in a 2025-11-25 session and in stateless 2026-07-28.
 */
import { Client, ProtocolError, StreamableHTTPClientTransport, type ClientOptions } from '@modelcontextprotocol/client';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { createEverythingServer } from '../../examples/everything/server';
import { serve, type Served } from '../helpers/serve.js';

const ERAS: Array<[string, ClientOptions]> = [
  ['2025-11-25', {}],
  ['2026-07-28', { versionNegotiation: { mode: { pin: '2026-07-28' } } }],
];

let served: Served;
let client: Client | undefined;

beforeAll(async () => {
  served = await serve({ server: createEverythingServer(), sseKeepAlive: 0 });
});

afterEach(async () => {
  await client?.close().catch(() => undefined);
  client = undefined;
});

afterAll(async () => {
  await served.close();
});

async function connect(options: ClientOptions): Promise<{ client: Client; skills: SkillsClient }> {
  client = new Client({ name: 'skills-interop', version: '1.0.0' }, { capabilities: {}, ...options });
  await client.connect(new StreamableHTTPClientTransport(new URL(served.url)));
  return { client, skills: new SkillsClient(client) };
}

describe.each(ERAS)('the example skills with the SDK v2 SkillsClient, %s', (version, options) => {
  test('the server declares the extension with directoryRead', async () => {
    const { client, skills } = await connect(options);
    expect(client.getNegotiatedProtocolVersion()).toBe(version);
    // The example also serves the tasks extension: only the skills entry is this test's.
    expect(client.getServerCapabilities()?.extensions?.['io.modelcontextprotocol/skills']).toEqual({ directoryRead: true });
    expect(skills.supported).toBe(true);
    expect(skills.directoryRead).toBe(true);
  });

  test('lists every skill, all valid, and every listed file verifies against its size and digest', async () => {
    const { skills } = await connect(options);
    const listing = await skills.list();
    expect(listing.invalid).toEqual([]);
    expect(listing.skills.map((skill) => skill.uri)).toEqual([
      'skill://acme/billing/refund-policy/SKILL.md',
      'skill://generated/release-notes/SKILL.md',
      'skill://pdf-processing/SKILL.md',
    ]);
    if (version === '2026-07-28') expect(listing).toMatchObject({ ttlMs: 0, cacheScope: 'public' });
    let verified = 0;
    for (const skill of listing.skills) {
      if (skill.resources === 'dynamic') continue;
      for (const resource of skill.resources) {
        const file = await skills.read(skill, resource.uri);
        expect(file).toMatchObject({ uri: resource.uri, verified: true });
        expect(file.bytes.byteLength).toBe(resource.size);
        verified++;
      }
    }
    expect(verified).toBe(6);
    const pdf = listing.skills.find((skill) => skill.frontmatter.name === 'pdf-processing')!;
    const manifest = await skills.read(pdf);
    expect(manifest.frontmatter).toEqual(pdf.frontmatter);
    expect(manifest.mimeType).toBe('text/markdown');
    expect((await skills.read(pdf, 'assets/logo.png')).mimeType).toBe('image/png');
  });

  test('skills/get and the dynamic skill: SKILL.md front matter equals the entry, other files come from code', async () => {
    const { skills } = await connect(options);
    const { skill } = await skills.get('skill://generated/release-notes/SKILL.md');
    expect(skill.resources).toBe('dynamic');
    const manifest = await skills.read(skill);
    expect(manifest).toMatchObject({ verified: false, frontmatter: skill.frontmatter });
    const changelog = await skills.read(skill, 'CHANGELOG.md');
    expect(changelog.text).toMatch(/^# Changes\n/);
  });

  test('readDirectory lists a skill folder and its subfolders', async () => {
    const { skills } = await connect(options);
    const root = await skills.readDirectory('skill://pdf-processing');
    expect(root.resources.map((child) => [child.uri, child.mimeType])).toEqual([
      ['skill://pdf-processing/SKILL.md', 'text/markdown'],
      ['skill://pdf-processing/assets', 'inode/directory'],
      ['skill://pdf-processing/references', 'inode/directory'],
      ['skill://pdf-processing/scripts', 'inode/directory'],
    ]);
    const scripts = await skills.readDirectory('skill://pdf-processing/scripts');
    expect(scripts.resources).toEqual([expect.objectContaining({ uri: 'skill://pdf-processing/scripts/fill_form.py', name: 'fill_form.py', mimeType: 'text/x-python' })]);
  });

  test('unknown skill files and escapes are errors, never content', async () => {
    const { client } = await connect(options);
    // The client reports resource-not-found (-32002 or -32602 on the wire) as -32602; skills-http.test.ts checks the wire.
    const codeOf = (uri: string) => client.readResource({ uri }).then(() => 0, (error: unknown) => (error instanceof ProtocolError ? error.code : -1));
    expect(await codeOf('skill://pdf-processing/missing.md')).toBe(-32602);
    expect(await codeOf('skill://pdf-processing/../../../package.json')).toBe(-32602);
    expect(await codeOf('skill://pdf-processing/%2e%2e/%2e%2e/package.json')).toBe(-32602);
  });
});
