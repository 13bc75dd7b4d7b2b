/** Wire names and limits of the skills extension (SEP-2640). */

/** The key a server advertises under `capabilities.extensions`. */
export const SKILLS_EXTENSION_ID = 'io.modelcontextprotocol/skills';
export const SKILLS_LIST_METHOD = 'skills/list';
export const SKILLS_GET_METHOD = 'skills/get';
/** Served only when the extension is declared with `directoryRead: true`. */
export const DIRECTORY_READ_METHOD = 'resources/directory/read';
/** The `mimeType` of a directory child in a `resources/directory/read` result. */
export const DIRECTORY_MIME_TYPE = 'inode/directory';
export const SKILL_URI_SCHEME = 'skill://';
export const SKILL_MANIFEST = 'SKILL.md';

/** The SEP's interoperability limits: hosts must accept skills this large, servers should not publish larger ones. */
export const DEFAULT_MAX_FILES_PER_SKILL = 512;
export const DEFAULT_MAX_BYTES_PER_SKILL = 16 * 1024 * 1024;
/** Entries per `skills/list` page and children per `resources/directory/read` page. */
export const DEFAULT_PAGE_SIZE = 100;
/** Folders below the skills directory (and inside a skill) deeper than this are not walked: no real tree needs it. */
export const MAX_DIRECTORY_DEPTH = 32;
