import { constants as fsConstants, promises as fs } from 'node:fs';
import path from 'node:path';

export type SkillFileFailure = 'missing' | 'outside' | 'not-a-file' | 'too-large';

/** A skill file that cannot be served, and why. */
export class SkillFileError extends Error {
  constructor(
    readonly reason: SkillFileFailure,
    message: string,
  ) {
    super(message);
    this.name = 'SkillFileError';
  }
}

/** True when the real path `candidate` is `root` or below it (both already resolved with `fs.realpath`). */
export function isInside(root: string, candidate: string): boolean {
  if (candidate === root) return true;
  return candidate.startsWith(root.endsWith(path.sep) ? root : root + path.sep);
}

const CHUNK = 64 * 1024;

/**
 * Reads the file at `segments` below the real path `root`, refusing anything whose real path (symbolic links
 * resolved) is not inside `root`, anything but a regular file, and more than `maxBytes` bytes.
 */
export async function readSkillFile(root: string, segments: readonly string[], maxBytes: number): Promise<Buffer> {
  const shown = segments.join('/');
  let real: string;
  try {
    real = await fs.realpath(path.join(root, ...segments));
  } catch {
    throw new SkillFileError('missing', `${shown} does not exist`);
  }
  if (!isInside(root, real)) throw new SkillFileError('outside', `${shown} resolves outside its skill directory`);
  let handle: fs.FileHandle;
  try {
    // O_NOFOLLOW: the real path has no link left; if one was swapped in since, refuse it rather than follow it.
    handle = await fs.open(real, fsConstants.O_RDONLY | (fsConstants.O_NOFOLLOW ?? 0));
  } catch {
    throw new SkillFileError('missing', `${shown} cannot be opened`);
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new SkillFileError('not-a-file', `${shown} is not a regular file`);
    if (stat.size > maxBytes) throw new SkillFileError('too-large', `${shown} is ${stat.size} bytes, more than the ${maxBytes} a skill may hold`);
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(CHUNK);
      const { bytesRead } = await handle.read(chunk, 0, CHUNK, null);
      if (bytesRead === 0) break;
      total += bytesRead;
      if (total > maxBytes) throw new SkillFileError('too-large', `${shown} is more than the ${maxBytes} bytes a skill may hold`);
      chunks.push(bytesRead === CHUNK ? chunk : chunk.subarray(0, bytesRead));
    }
    return Buffer.concat(chunks, total);
  } finally {
    await handle.close();
  }
}
