import { ErrorCode } from '../protocol/error-codes.js';
import { McpError } from '../protocol/mcp-error.js';
import type { ReadResourceResult, ResourceContents } from '../protocol/types.js';
import type { McpServer } from '../server/mcp-server.js';
import type { RequestContext } from '../server/request-context.js';
import { frontmatterProblems, jsonProblem, parseFrontMatter, renderSkillMarkdown, type SkillFrontmatter } from './front-matter.js';
import { isTextual, mimeTypeOf } from './mime-types.js';
import { directorySkill, dynamicSkill, pageAfter, SkillCatalog, type CatalogSkill, type DirectoryChild, type SkillEntry } from './skill-catalog.js';
import {
  DEFAULT_MAX_BYTES_PER_SKILL,
  DEFAULT_MAX_FILES_PER_SKILL,
  DEFAULT_PAGE_SIZE,
  DIRECTORY_READ_METHOD,
  SKILL_MANIFEST,
  SKILL_URI_SCHEME,
  SKILLS_EXTENSION_ID,
  SKILLS_GET_METHOD,
  SKILLS_LIST_METHOD,
} from './skill-constants.js';
import { readSkillFile, SkillFileError } from './skill-file-reader.js';
import { scanSkill, scanSkillsDirectory, sha256Digest, type SkillLimits } from './skill-scanner.js';
import { parseSkillUri, skillUri } from './skill-uri.js';

export interface SkillsExtensionOptions {
  /**
   * A folder of skills: every folder below it that holds a `SKILL.md` is a skill, served at
   * `skill://<its path>/SKILL.md` (`pdf-processing`, or nested: `acme/billing/refunds`); everything inside it is
   * its files. Read on the first request, or when you call `reload()`. Default: none (only skills added with
   * `addSkill`).
   */
  directory?: string;
  /** Serve `resources/directory/read` on skill folders and declare `directoryRead: true`. Default: `false`. */
  directoryRead?: boolean;
  /** A skill with more files than this (`SKILL.md` included) is not served. Default: 512 (the SEP's limit). */
  maxFilesPerSkill?: number;
  /** A skill whose files add up to more bytes than this is not served. Default: 16 MiB (the SEP's limit). */
  maxBytesPerSkill?: number;
  /** Entries per `skills/list` page, and children per `resources/directory/read` page. Default: 100. */
  pageSize?: number;
  /**
   * Receives what could not be served when the folder was read on a request's behalf (a `SkillsLoadError`), or
   * when a skill changed on disk and no longer passes. Default: `console.error`.
   */
  onError?: (error: unknown) => void;
}

/** A file of a skill added with `addSkill`, as its `read` callback produces it: `text` or `blob`. */
export interface SkillFileContent {
  text?: string;
  blob?: Uint8Array;
  /** Default: from the file name's extension (`application/octet-stream` when unknown). */
  mimeType?: string;
}

/** A skill defined in code: its `SKILL.md` is built from `frontmatter` and `body`; its files come from `read`. */
export interface DynamicSkillConfig {
  /** The skill's path: `/`-separated segments, the last one equal to `frontmatter.name`. Default: `frontmatter.name`. */
  path?: string;
  /** Front matter with at least `name` and `description` (JSON values only). */
  frontmatter: SkillFrontmatter;
  /** The markdown after the front matter. */
  body: string;
  /**
   * Produces any other file, by its path below the skill (`references/guide.md`); `undefined` means there is no
   * such file. Its entry lists `resources: "dynamic"`. Default: the skill has no other files.
   */
  read?: (path: string, ctx: RequestContext) => SkillFileContent | undefined | Promise<SkillFileContent | undefined>;
}

export interface RegisteredSkill {
  /** The skill's `SKILL.md` URI. */
  readonly uri: string;
  /** Stops serving it. */
  remove(): void;
}

/** What a load of the skills folder left out (invalid skills, files outside a skill, …); the rest is served. */
export class SkillsLoadError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`Some skills are not served:\n- ${problems.join('\n- ')}`);
    this.name = 'SkillsLoadError';
  }
}

interface DynamicRecord {
  skill: CatalogSkill;
  read: DynamicSkillConfig['read'];
}

/**
 * The skills extension (SEP-2640): serves agent skills from a folder and from code. `register(server)` declares
 * `io.modelcontextprotocol/skills`, answers `skills/list` and `skills/get`, serves the files as `skill://`
 * resources (and `resources/directory/read` with `directoryRead`).
 *
 * ```ts
 * const skills = new SkillsExtension({ directory: path.join(__dirname, 'skills') }).register(server);
 * await skills.reload(); // optional: read the folder now and fail fast on invalid skills
 * ```
 */
export class SkillsExtension {
  private readonly directory: string | undefined;
  private readonly directoryRead: boolean;
  private readonly limits: SkillLimits;
  private readonly pageSize: number;
  private readonly onError: (error: unknown) => void;
  private server: McpServer | undefined;
  private catalog = SkillCatalog.EMPTY;
  private fromDirectory: CatalogSkill[] = [];
  private readonly dynamic = new Map<string, DynamicRecord>();
  /** Loads run one at a time, in order. */
  private queue: Promise<void> = Promise.resolve();
  /** Settles (never rejects) when the latest load is done; undefined before the first. */
  private loaded: Promise<void> | undefined;

  constructor(options: SkillsExtensionOptions = {}) {
    this.directory = options.directory;
    this.directoryRead = options.directoryRead ?? false;
    this.limits = {
      maxFiles: positiveInteger(options.maxFilesPerSkill, DEFAULT_MAX_FILES_PER_SKILL, 'maxFilesPerSkill'),
      maxBytes: positiveInteger(options.maxBytesPerSkill, DEFAULT_MAX_BYTES_PER_SKILL, 'maxBytesPerSkill'),
    };
    this.pageSize = positiveInteger(options.pageSize, DEFAULT_PAGE_SIZE, 'pageSize');
    this.onError = options.onError ?? ((error: unknown) => console.error('[mcp-express skills]', error instanceof Error ? error.message : error));
  }

  /** Declares the extension on `server` and serves its methods and `skill://` resources. Once per extension. */
  register(server: McpServer): this {
    if (this.server) throw new TypeError('This SkillsExtension is already registered with a server; create one SkillsExtension per server.');
    this.server = server;
    server.declareExtension(SKILLS_EXTENSION_ID, this.directoryRead ? { directoryRead: true } : {});
    server.setRequestHandler(SKILLS_LIST_METHOD, (params) => this.list(params));
    server.setRequestHandler(SKILLS_GET_METHOD, (params) => this.get(params));
    if (this.directoryRead) server.setRequestHandler(DIRECTORY_READ_METHOD, (params) => this.readDirectory(params));
    server.resourceProvider(SKILL_URI_SCHEME, {
      read: (uri, ctx) => this.read(uri, ctx),
      list: async () => {
        await this.whenLoaded();
        return this.catalog.skills().map((skill) => skill.listed);
      },
    });
    return this;
  }

  /**
   * Reads the skills folder again (the first call reads it the first time): new, changed and removed skills,
   * digests and sizes recomputed. Resolves when it is served; rejects with a `SkillsLoadError` naming what was left
   * out (everything else is served). Without a `directory`, does nothing.
   */
  reload(): Promise<void> {
    const run = this.queue.then(() => this.scanDirectory());
    this.queue = run.catch(() => undefined);
    this.loaded = this.queue;
    return run;
  }

  /** Serves a skill defined in code. Throws a `TypeError` saying what to fix when it is invalid. */
  addSkill(config: DynamicSkillConfig): RegisteredSkill {
    const frontmatter = config.frontmatter;
    const path = config.path ?? String(frontmatter?.name);
    const segments = path.split('/');
    if (segments.some((segment) => segment === '' || segment === '.' || segment === '..' || /[\\\0]/.test(segment))) {
      throw new TypeError(`addSkill: path "${path}" must be /-separated folder names (no empty, "." or ".." segments, no backslash)`);
    }
    if (typeof frontmatter !== 'object' || frontmatter === null) throw new TypeError('addSkill needs frontmatter with a name and a description');
    const notJson = jsonProblem(frontmatter, 'frontmatter', 0);
    if (notJson) throw new TypeError(`addSkill "${path}": ${notJson}; front matter holds JSON values only (strings, finite numbers, booleans, null, arrays, plain objects)`);
    const problems = frontmatterProblems(frontmatter, segments[segments.length - 1]);
    if (problems.length > 0) throw new TypeError(`addSkill "${path}": ${problems.join('; ')}`);
    if (typeof config.body !== 'string') throw new TypeError(`addSkill "${path}": body must be the markdown text after the front matter`);
    const markdown = renderSkillMarkdown(frontmatter, config.body);
    let parsed: Record<string, unknown>;
    try {
      parsed = parseFrontMatter(markdown);
    } catch (error) {
      throw new TypeError(`addSkill "${path}": ${(error as Error).message}`);
    }
    if (JSON.stringify(parsed) !== JSON.stringify(frontmatter)) {
      throw new TypeError(`addSkill "${path}": the front matter does not read back the same from SKILL.md; it must hold JSON values only`);
    }
    if (Buffer.byteLength(markdown) > this.limits.maxBytes) throw new TypeError(`addSkill "${path}": SKILL.md is larger than maxBytesPerSkill (${this.limits.maxBytes} bytes)`);
    for (const other of this.dynamic.keys()) {
      if (other === path || other.startsWith(`${path}/`) || path.startsWith(`${other}/`)) throw new TypeError(`addSkill: path "${path}" overlaps the skill "${other}" already added`);
    }
    const record: DynamicRecord = { skill: dynamicSkill(segments, parsed as SkillFrontmatter, markdown), read: config.read };
    this.dynamic.set(path, record);
    this.rebuild();
    return {
      uri: record.skill.entry.uri,
      remove: () => {
        if (this.dynamic.get(path) === record && this.dynamic.delete(path)) this.rebuild();
      },
    };
  }

  /** The entries served now (after the latest load), in `skills/list` order. */
  entries(): SkillEntry[] {
    return this.catalog.skills().map((skill) => skill.entry);
  }

  private async scanDirectory(): Promise<void> {
    if (this.directory === undefined) return;
    let scan: Awaited<ReturnType<typeof scanSkillsDirectory>>;
    try {
      scan = await scanSkillsDirectory(this.directory, this.limits);
    } catch (error) {
      throw new SkillsLoadError([(error as Error).message]);
    }
    this.fromDirectory = scan.skills.map(directorySkill);
    const problems = [...scan.problems, ...this.rebuild()];
    if (problems.length > 0) throw new SkillsLoadError(problems);
  }

  /** Builds the catalog from the current parts, tells clients what changed, and returns what was left out. */
  private rebuild(): string[] {
    const previous = this.catalog;
    const { catalog, problems } = SkillCatalog.build(
      Array.from(this.dynamic.values(), (record) => record.skill),
      this.fromDirectory,
    );
    this.catalog = catalog;
    this.announceChanges(previous, catalog);
    return problems;
  }

  private announceChanges(previous: SkillCatalog, next: SkillCatalog): void {
    const server = this.server;
    if (!server) return;
    const before = new Map(previous.skills().map((skill) => [skill.entry.uri, skill]));
    let listChanged = before.size !== next.size;
    for (const skill of next.skills()) {
      const old = before.get(skill.entry.uri);
      if (!old) {
        listChanged = true;
        continue;
      }
      if (JSON.stringify(old.listed) !== JSON.stringify(skill.listed)) listChanged = true;
      const oldDigests = new Map(Array.isArray(old.entry.resources) ? old.entry.resources.map((file) => [file.uri, file.digest]) : []);
      if (Array.isArray(skill.entry.resources)) {
        for (const file of skill.entry.resources) {
          const digest = oldDigests.get(file.uri);
          if (digest !== undefined && digest !== file.digest) server.notifyResourceUpdated(file.uri);
        }
      }
    }
    if (listChanged) server.notifyResourcesListChanged();
  }

  /** Waits for the latest load; starts the first one when the folder was never read. */
  private async whenLoaded(): Promise<void> {
    if (this.directory === undefined) return;
    if (!this.loaded) this.reload().catch(this.onError);
    await this.loaded;
  }

  private async list(params: Record<string, unknown> | undefined): Promise<Record<string, unknown>> {
    const cursor = params?.cursor;
    if (cursor !== undefined && typeof cursor !== 'string') throw new McpError(ErrorCode.InvalidParams, 'skills/list params.cursor must be a string from a previous nextCursor');
    await this.whenLoaded();
    const page = this.catalog.page(cursor, this.pageSize);
    if (!page) throw new McpError(ErrorCode.InvalidParams, 'Invalid cursor: pass a nextCursor from a previous skills/list result, or none for the first page');
    return { ...page };
  }

  private async get(params: Record<string, unknown> | undefined): Promise<Record<string, unknown>> {
    const uri = params?.uri;
    if (typeof uri !== 'string') throw new McpError(ErrorCode.InvalidParams, 'skills/get needs params.uri, the skill://…/SKILL.md URI of a skill');
    await this.whenLoaded();
    const located = this.locate(uri);
    if (!located || located.rest.length !== 1 || located.rest[0] !== SKILL_MANIFEST) {
      throw new McpError(ErrorCode.InvalidParams, `Unknown skill: ${uri} is not the SKILL.md URI of a skill this server serves`, { uri });
    }
    return { skill: located.skill.entry };
  }

  private async readDirectory(params: Record<string, unknown> | undefined): Promise<Record<string, unknown>> {
    const uri = params?.uri;
    const cursor = params?.cursor;
    if (typeof uri !== 'string') throw new McpError(ErrorCode.InvalidParams, 'resources/directory/read needs params.uri, the URI of a skill folder');
    if (cursor !== undefined && typeof cursor !== 'string') throw new McpError(ErrorCode.InvalidParams, 'resources/directory/read params.cursor must be a string from a previous nextCursor');
    await this.whenLoaded();
    const located = this.locate(uri.endsWith('/') ? uri.slice(0, -1) : uri);
    let children: DirectoryChild[] | undefined;
    if (located?.skill.source.kind === 'directory') children = located.skill.source.directories.get(located.rest.join('/'));
    if (!children) throw new McpError(ErrorCode.InvalidParams, `Not a directory: ${uri} is not a folder of a skill this server serves`, { uri });
    const page = pageAfter(children, (child) => child.uri, cursor, this.pageSize, (child) => child);
    if (!page) throw new McpError(ErrorCode.InvalidParams, 'Invalid cursor: pass a nextCursor from a previous resources/directory/read result, or none for the first page');
    return page.nextCursor === undefined ? { resources: page.items } : { resources: page.items, nextCursor: page.nextCursor };
  }

  private locate(uri: string) {
    const parsed = parseSkillUri(uri);
    return 'segments' in parsed ? this.catalog.locate(parsed.segments) : undefined;
  }

  private async read(uri: string, ctx: RequestContext): Promise<ReadResourceResult> {
    const parsed = parseSkillUri(uri);
    if ('invalid' in parsed) throw new McpError(ErrorCode.InvalidParams, `${uri} is not a skill file URI: ${parsed.invalid}`, { uri });
    await this.whenLoaded();
    const located = this.catalog.locate(parsed.segments);
    const notFound = () =>
      new McpError(ctx.protocolVersion >= '2026-07-28' ? ErrorCode.InvalidParams : ErrorCode.ResourceNotFound, `Skill resource not found: ${uri}`, { uri });
    if (!located || located.rest.length === 0) throw notFound();
    const { skill, rest } = located;
    const isManifest = rest.length === 1 && rest[0] === SKILL_MANIFEST;
    if (skill.source.kind === 'dynamic') {
      if (isManifest) return { contents: [{ uri: skill.entry.uri, mimeType: 'text/markdown', text: skill.source.markdown }] };
      const read = this.dynamic.get(skill.key)?.read;
      const file = read ? await read(rest.join('/'), ctx) : undefined;
      if (!file) throw notFound();
      return { contents: [dynamicContents(parsed.segments, file)] };
    }
    const file = skill.source.files.get(rest.join('/'));
    if (!file) throw notFound();
    let bytes: Buffer;
    try {
      bytes = await readSkillFile(skill.source.scan.root, file.segments, this.limits.maxBytes);
    } catch (error) {
      if (!(error instanceof SkillFileError)) throw error;
      await this.refresh(skill);
      if (error.reason === 'missing') throw notFound();
      throw new McpError(ErrorCode.InvalidParams, `${uri} is not served: ${error.message}`, { uri });
    }
    // Changed on disk since the folder was read: serve what is there and bring the skill's entry up to date.
    if (bytes.length !== file.size || sha256Digest(bytes) !== file.digest) await this.refresh(skill);
    return { contents: [contentsOf(file.uri, file.mimeType, bytes)] };
  }

  /** Reads one skill folder again (after a change seen on read); a skill that no longer passes stops being served. */
  private refresh(skill: CatalogSkill): Promise<void> {
    if (skill.source.kind !== 'directory') return Promise.resolve();
    const { scan } = skill.source;
    const run = this.queue.then(async () => {
      const index = this.fromDirectory.findIndex((candidate) => candidate.key === skill.key);
      if (index < 0) return;
      const problems: string[] = [];
      try {
        this.fromDirectory[index] = directorySkill(await scanSkill(scan.root, scan.pathSegments, this.limits, problems));
      } catch (error) {
        this.fromDirectory.splice(index, 1);
        problems.push(`${skill.key}: ${(error as Error).message} (skill not served)`);
      }
      problems.push(...this.rebuild());
      if (problems.length > 0) this.onError(new SkillsLoadError(problems));
    });
    this.queue = run.catch(() => undefined);
    this.loaded = this.queue;
    return this.queue;
  }
}

function contentsOf(uri: string, mimeType: string, bytes: Buffer): ResourceContents {
  if (isTextual(mimeType)) {
    const text = bytes.toString('utf8');
    // Only bytes that survive the round trip go as text: the client hashes the UTF-8 of what it gets.
    if (Buffer.from(text, 'utf8').equals(bytes)) return { uri, mimeType, text };
  }
  return { uri, mimeType, blob: bytes.toString('base64') };
}

function dynamicContents(segments: string[], file: SkillFileContent): ResourceContents {
  const uri = skillUri(segments);
  const mimeType = file.mimeType ?? mimeTypeOf(segments[segments.length - 1]);
  if (typeof file.text === 'string') return { uri, mimeType, text: file.text };
  if (file.blob instanceof Uint8Array) return { uri, mimeType, blob: Buffer.from(file.blob).toString('base64') };
  throw new McpError(ErrorCode.InternalError, `The read callback of the skill returned neither text nor blob for ${uri}`);
}

function positiveInteger(value: number | undefined, fallback: number, option: string): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1) throw new TypeError(`SkillsExtension option ${option} must be a positive integer (default ${fallback}); got ${String(value)}`);
  return value;
}
