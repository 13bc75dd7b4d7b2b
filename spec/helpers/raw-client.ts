import { parseSse, type ParsedSseEvent } from './sse.js';
import { ACCEPT_BOTH } from './wire.js';

export { ACCEPT_BOTH, toolCall } from './wire.js';

/** A minimal hand-driven MCP client over fetch, for tests that must see the wire. */
export class RawClient {
  sessionId: string | undefined;
  constructor(
    readonly url: string,
    readonly protocolVersion = '2025-11-25',
  ) {}

  headers(extra: Record<string, string> = {}): Record<string, string> {
    const headers: Record<string, string> = { 'Content-Type': 'application/json', Accept: ACCEPT_BOTH, ...extra };
    if (this.sessionId) {
      headers['Mcp-Session-Id'] = this.sessionId;
      headers['MCP-Protocol-Version'] = this.protocolVersion;
    }
    return headers;
  }

  /** initialize + notifications/initialized; returns the initialize SSE body. */
  async initialize(capabilities: Record<string, unknown> = {}): Promise<string> {
    const response = await fetch(this.url, {
      method: 'POST',
      headers: this.headers(),
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: this.protocolVersion, capabilities, clientInfo: { name: 'raw', version: '1.0' } },
      }),
    });
    if (response.status !== 200) throw new Error(`initialize answered ${response.status}: ${await response.text()}`);
    this.sessionId = response.headers.get('mcp-session-id') ?? undefined;
    const body = await response.text();
    const initialized = await this.post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    if (initialized.status !== 202) throw new Error(`initialized answered ${initialized.status}`);
    await initialized.text();
    return body;
  }

  post(message: unknown, extraHeaders: Record<string, string> = {}): Promise<Response> {
    return fetch(this.url, { method: 'POST', headers: this.headers(extraHeaders), body: JSON.stringify(message) });
  }

  /** POSTs and reads the whole SSE body. */
  async call(message: unknown): Promise<{ status: number; body: string; events: ParsedSseEvent[] }> {
    const response = await this.post(message);
    const body = await response.text();
    return { status: response.status, body, events: parseSse(body) };
  }

  get(extra: Record<string, string> = {}, signal?: AbortSignal): Promise<Response> {
    const headers: Record<string, string> = { Accept: 'text/event-stream', ...extra };
    if (this.sessionId) {
      headers['Mcp-Session-Id'] = this.sessionId;
      headers['MCP-Protocol-Version'] = this.protocolVersion;
    }
    return fetch(this.url, { method: 'GET', headers, signal });
  }
}

/** Reads a streaming body until `until` holds for the text read so far (or the body ends / times out). */
export async function readUntil(response: Response, until: (text: string) => boolean, timeoutMs = 3000): Promise<{ text: string; reader: ReadableStreamDefaultReader<Uint8Array> }> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  const deadline = Date.now() + timeoutMs;
  while (!until(text)) {
    const remaining = deadline - Date.now();
    if (remaining <= 0) throw new Error(`timed out; read so far:\n${text}`);
    let timer: NodeJS.Timeout | undefined;
    const chunk = await Promise.race([
      reader.read(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`timed out; read so far:\n${text}`)), remaining);
      }),
    ]).finally(() => clearTimeout(timer));
    if (chunk.done) break;
    text += decoder.decode(chunk.value, { stream: true });
  }
  return { text, reader };
}
