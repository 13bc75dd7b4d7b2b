import type { ContentBlock } from 'mcp-express';

/** The text of a sampling answer, which may be one block or (with tool use) several. */
export function textOf(content: ContentBlock | ContentBlock[]): string {
  const blocks = Array.isArray(content) ? content : [content];
  const texts = blocks.flatMap((block) => (block.type === 'text' ? [block.text] : []));
  return texts.length > 0 ? texts.join('\n') : '(no text in the answer)';
}
