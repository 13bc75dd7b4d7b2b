import type { ListedResource } from '../server/resource-registry.js';
import type { SkillFrontmatter } from './front-matter.js';
import { DIRECTORY_MIME_TYPE, SKILL_MANIFEST } from './skill-constants.js';
import type { ScannedFile, ScannedSkill } from './skill-scanner.js';
import { decodeCursor, encodeCursor, skillUri } from './skill-uri.js';

/** One file of a skill as its entry lists it. */
export interface SkillResourceEntry {
  uri: string;
  /** `sha256:` and 64 lowercase hex digits of the file's bytes. */
  digest: string;
  /** The file's length in bytes. */
  size: number;
}

/** A skill as `skills/list` and `skills/get` carry it. */
export interface SkillEntry {
  /** The `skill://…/SKILL.md` URI. */
  uri: string;
  /** The `SKILL.md` front matter, verbatim. */
  frontmatter: SkillFrontmatter;
  /** Every file of the skill (`SKILL.md` first), or `"dynamic"` when they are produced on request. */
  resources: SkillResourceEntry[] | 'dynamic';
}

/** A child in a `resources/directory/read` result. */
export interface DirectoryChild {
  uri: string;
  name: string;
  description?: string;
  mimeType: string;
  size?: number;
}

/** What serves the files of a skill. */
export type SkillSource =
  | { kind: 'directory'; scan: ScannedSkill; files: ReadonlyMap<string, ScannedFile>; directories: ReadonlyMap<string, DirectoryChild[]> }
  | { kind: 'dynamic'; markdown: string };

export interface CatalogSkill {
  /** The decoded skill path, segments joined by `/`. */
  key: string;
  entry: SkillEntry;
  listed: ListedResource;
  source: SkillSource;
}

/** A skill and the decoded path below its root that a URI names. */
export interface Located {
  skill: CatalogSkill;
  rest: string[];
}

export interface CatalogBuild {
  catalog: SkillCatalog;
  problems: string[];
}

/**
 * An immutable snapshot of the skills served: sorted by URI for stable pages. A reload or a change builds a new
 * one, so a request works on one consistent snapshot.
 */
export class SkillCatalog {
  private readonly sorted: CatalogSkill[];
  private readonly byKey = new Map<string, CatalogSkill>();
  private readonly maxDepth: number;

  private constructor(skills: CatalogSkill[]) {
    this.sorted = [...skills].sort((a, b) => (a.entry.uri < b.entry.uri ? -1 : a.entry.uri > b.entry.uri ? 1 : 0));
    let depth = 0;
    for (const skill of this.sorted) {
      this.byKey.set(skill.key, skill);
      depth = Math.max(depth, skill.key.split('/').length);
    }
    this.maxDepth = depth;
  }

  static readonly EMPTY = new SkillCatalog([]);

  /**
   * A catalog of code-defined skills plus directory skills; a directory skill whose path equals, contains or is
   * contained in a code-defined one's is left out and reported.
   */
  static build(dynamic: Iterable<CatalogSkill>, fromDirectory: Iterable<CatalogSkill>): CatalogBuild {
    const skills = [...dynamic];
    const problems: string[] = [];
    for (const skill of fromDirectory) {
      const clash = skills.find((other) => pathsOverlap(other.key, skill.key));
      if (clash) problems.push(`${skill.key}: its path overlaps the skill "${clash.key}" added with addSkill() (skill not served)`);
      else skills.push(skill);
    }
    return { catalog: new SkillCatalog(skills), problems };
  }

  get size(): number {
    return this.sorted.length;
  }

  skills(): readonly CatalogSkill[] {
    return this.sorted;
  }

  /** One page of entries after `cursor`; an entry is never split. Undefined for a cursor this server did not mint. */
  page(cursor: string | undefined, pageSize: number): { skills: SkillEntry[]; nextCursor?: string } | undefined {
    const page = pageAfter(this.sorted, (skill) => skill.entry.uri, cursor, pageSize, (skill) => skill.entry);
    if (!page) return undefined;
    return page.nextCursor === undefined ? { skills: page.items } : { skills: page.items, nextCursor: page.nextCursor };
  }

  /** The skill whose path is a prefix of `segments`, and the rest of them. */
  locate(segments: readonly string[]): Located | undefined {
    let key = '';
    for (let index = 0; index < Math.min(segments.length, this.maxDepth); index++) {
      key = index === 0 ? segments[0] : `${key}/${segments[index]}`;
      const skill = this.byKey.get(key);
      if (skill) return { skill, rest: segments.slice(index + 1) };
    }
    return undefined;
  }
}

function pathsOverlap(a: string, b: string): boolean {
  return a === b || a.startsWith(`${b}/`) || b.startsWith(`${a}/`);
}

/** Items after the one whose key the cursor holds, `pageSize` of them, and the cursor of the next page. */
export function pageAfter<T, R>(
  items: readonly T[],
  keyOf: (item: T) => string,
  cursor: string | undefined,
  pageSize: number,
  map: (item: T) => R,
): { items: R[]; nextCursor?: string } | undefined {
  let start = 0;
  if (cursor !== undefined) {
    const after = decodeCursor(cursor);
    if (after === undefined) return undefined;
    // The first item after the key: stable when items were added or removed between pages.
    let low = 0;
    let high = items.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (keyOf(items[middle]) <= after) low = middle + 1;
      else high = middle;
    }
    start = low;
  }
  const page = items.slice(start, start + pageSize);
  const result: { items: R[]; nextCursor?: string } = { items: page.map(map) };
  if (start + pageSize < items.length) result.nextCursor = encodeCursor(keyOf(page[page.length - 1]));
  return result;
}

/** The served form of a scanned directory skill: its entry, its `resources/list` line, its files and folders. */
export function directorySkill(scan: ScannedSkill): CatalogSkill {
  const manifest = scan.files[0];
  const frontmatter = scan.frontmatter;
  const files = new Map<string, ScannedFile>();
  for (const file of scan.files) files.set(file.segments.join('/'), file);
  const directories = new Map<string, DirectoryChild[]>();
  const seen = new Set<string>();
  const childrenOf = (folder: string): DirectoryChild[] => {
    let children = directories.get(folder);
    if (!children) directories.set(folder, (children = []));
    return children;
  };
  for (const file of scan.files) {
    // Every folder on the way to the file is a child of its parent folder, listed once.
    for (let depth = 1; depth < file.segments.length; depth++) {
      const folder = file.segments.slice(0, depth).join('/');
      if (seen.has(folder)) continue;
      seen.add(folder);
      childrenOf(file.segments.slice(0, depth - 1).join('/')).push({
        uri: skillUri([...scan.pathSegments, ...file.segments.slice(0, depth)]),
        name: file.segments[depth - 1],
        mimeType: DIRECTORY_MIME_TYPE,
      });
    }
    const isManifest = file === manifest;
    childrenOf(file.segments.slice(0, -1).join('/')).push({
      uri: file.uri,
      name: isManifest ? frontmatter.name : file.segments[file.segments.length - 1],
      ...(isManifest ? { description: frontmatter.description } : {}),
      mimeType: file.mimeType,
      size: file.size,
    });
  }
  for (const children of directories.values()) children.sort((a, b) => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0));
  return {
    key: scan.pathSegments.join('/'),
    entry: { uri: manifest.uri, frontmatter, resources: scan.files.map(({ uri, digest, size }) => ({ uri, digest, size })) },
    listed: manifestListing(manifest.uri, frontmatter, manifest.size),
    source: { kind: 'directory', scan, files, directories },
  };
}

/** The served form of a skill defined in code. */
export function dynamicSkill(pathSegments: string[], frontmatter: SkillFrontmatter, markdown: string): CatalogSkill {
  const uri = skillUri([...pathSegments, SKILL_MANIFEST]);
  return {
    key: pathSegments.join('/'),
    entry: { uri, frontmatter, resources: 'dynamic' },
    listed: manifestListing(uri, frontmatter, Buffer.byteLength(markdown)),
    source: { kind: 'dynamic', markdown },
  };
}

function manifestListing(uri: string, frontmatter: SkillFrontmatter, size: number): ListedResource {
  return { uri, name: frontmatter.name, description: frontmatter.description, mimeType: 'text/markdown', size };
}
