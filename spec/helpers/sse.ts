/**
 * SSE parsing for specs, one parser for all: `parseSseFrames` follows the WHATWG rules and keeps every field of
 * every block (comments included); `parseSse` and `sseMessages` are the shorthands for a complete body.
 */
import type { JsonRpcMessage } from '../../lib/protocol/jsonrpc.js';

/** One SSE event block as received: every field it carried, comments included (`:` lines). */
export interface SseFrame {
  id?: string;
  retry?: number;
  event?: string;
  /** The `data:` lines joined with `\n`; undefined when the block had none. */
  data?: string;
  comments: string[];
}

/** One parsed SSE event. `data` is undefined for frames without data lines. */
export interface ParsedSseEvent {
  id?: string;
  retry?: number;
  event?: string;
  data?: string;
}

/**
 * Splits an SSE body into its blocks, per the WHATWG parsing rules (one leading space after `:` is dropped). An
 * unterminated block at the end is left out: the server may still be writing it.
 */
export function parseSseFrames(text: string): SseFrame[] {
  const frames: SseFrame[] = [];
  const lines = text.split(/\r\n|\r|\n/);
  let frame: SseFrame = { comments: [] };
  let touched = false;
  let dataLines: string[] | undefined;
  const flush = () => {
    if (touched) {
      if (dataLines) frame.data = dataLines.join('\n');
      frames.push(frame);
    }
    frame = { comments: [] };
    touched = false;
    dataLines = undefined;
  };
  for (const line of lines) {
    if (line === '') {
      flush();
      continue;
    }
    touched = true;
    if (line.startsWith(':')) {
      frame.comments.push(line.slice(1));
      continue;
    }
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') (dataLines ??= []).push(value);
    else if (field === 'id') frame.id = value;
    else if (field === 'event') frame.event = value;
    else if (field === 'retry') frame.retry = Number(value);
  }
  return frames;
}

/** The JSON-RPC messages of parsed frames (blocks with non-empty data), in order. */
export function messagesOf(frames: Array<{ data?: string }>): JsonRpcMessage[] {
  return frames.filter((frame) => frame.data !== undefined && frame.data !== '').map((frame) => JSON.parse(frame.data!) as JsonRpcMessage);
}

/** Parses a complete SSE body into events, without comments (comment-only blocks, e.g. keep-alives, are skipped). */
export function parseSse(body: string): ParsedSseEvent[] {
  // A complete body's last block counts even without its blank line.
  return parseSseFrames(`${body}\n\n`)
    .filter((frame) => frame.id !== undefined || frame.retry !== undefined || frame.event !== undefined || frame.data !== undefined)
    .map(({ comments: _comments, ...event }) => event);
}

/** The JSON-RPC messages of a complete SSE body, in order. */
export function sseMessages(body: string): Array<Record<string, any>> {
  return messagesOf(parseSse(body)) as Array<Record<string, any>>;
}
