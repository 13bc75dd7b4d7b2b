/**
 * writeStream with a channel: the events a channel already holds go out in one write with the one awaited (at most
 * a socket buffer's worth), in order, and a channel that has ended with nothing left ends the response at once;
 * a channel watched by the observer (`onEvent`, tracing) is written the same way, and every event is seen; events
 * that arrive within one tick share a write, and none is held past its tick (the priming event reaches the client
 * before a slow response); a stream that ends within its first tick is one body with its Content-Length, any other
 * is chunked; a client that leaves before the first write detaches the stream. `followStream` does the same with
 * a callback: it makes no promise for a channel, calls `ended` once, and hands it the failure when an event cannot
 * be written (the channel is then detached).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { KeepAliveTicker } from '../../lib/http/keep-alive.js';
import { followStream, writeStream } from '../../lib/http/stream-writer.js';
import { promiseHooks } from 'node:v8';
import type { McpEvent } from '../../lib/observability/events.js';
import { Observer } from '../../lib/observability/observer.js';
import type { SseStream } from '../../lib/store/sse-event.js';
import { SseChannel } from '../../lib/session/sse-channel.js';
import { parseSse } from '../helpers/sse.js';

/**
 * Serves one request with `fill(channel)` then writeStream; returns the body and the sizes of the writes that carried
 * frames (`res.write`, and `res.end` given the last ones).
 */
async function serveChannel(
  fill: (channel: SseChannel) => void,
  wrap: (channel: SseChannel) => SseStream = (channel) => channel,
  headers?: Record<string, string>,
): Promise<{ body: string; writes: number[]; headers: Headers }> {
  const writes: number[] = [];
  const server = http.createServer((_req, res) => {
    const write = res.write.bind(res) as (chunk: string) => boolean;
    res.write = ((chunk: string) => {
      writes.push(Buffer.byteLength(chunk));
      return write(chunk);
    }) as typeof res.write;
    const end = res.end.bind(res) as (chunk?: string) => http.ServerResponse;
    res.end = ((chunk?: unknown) => {
      if (typeof chunk === 'string') writes.push(Buffer.byteLength(chunk));
      return end(typeof chunk === 'string' ? chunk : undefined);
    }) as typeof res.end;
    const channel = new SseChannel();
    fill(channel);
    void writeStream(res, wrap(channel), { keepAlive: new KeepAliveTicker(0), headers });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const response = await fetch(`http://127.0.0.1:${port}/`);
    return { body: await response.text(), writes, headers: response.headers };
  } finally {
    server.close();
  }
}

const message = (n: number) => ({ jsonrpc: '2.0' as const, method: 'notifications/message', params: { n } });

describe('writeStream', () => {
  test('events already queued go out in one write, in order, and an ended channel ends the response', async () => {
    const { body, writes } = await serveChannel((channel) => {
      channel.push({ id: 'p', retry: 1000 });
      for (let n = 1; n <= 3; n++) channel.push({ id: `e${n}`, message: message(n) });
      channel.end();
    });
    const events = parseSse(body);
    expect(events.map((e) => e.id)).toEqual(['p', 'e1', 'e2', 'e3']);
    expect(events.slice(1).map((e) => JSON.parse(e.data!).params.n)).toEqual([1, 2, 3]);
    expect(writes).toHaveLength(1);
  });

  test('a queue larger than the socket buffer is written a buffer at a time, nothing lost', async () => {
    const text = 'x'.repeat(4000);
    const { body, writes } = await serveChannel((channel) => {
      for (let n = 0; n < 20; n++) channel.push({ id: `e${n}`, message: { jsonrpc: '2.0', method: 'notifications/message', params: { n, text } } });
      channel.end();
    });
    expect(parseSse(body).map((e) => e.id)).toEqual(Array.from({ length: 20 }, (_, n) => `e${n}`));
    expect(writes.length).toBeGreaterThan(1);
    // Each write stops adding events once it holds a socket buffer's worth (16 KiB): at most one event past it.
    for (const size of writes) expect(size).toBeLessThan(16 * 1024 + 4200);
  });

  test('a watched channel is written the same way, and the observer sees the response among the queued events', async () => {
    const events: McpEvent[] = [];
    const observer = new Observer((event) => events.push(event), false, () => undefined, () => true);
    const request = { jsonrpc: '2.0' as const, id: 7, method: 'tools/call', params: { name: 'sum' } };
    const tracking = observer.begin('session', request, 's-1', '2025-11-25', {});
    const { body, writes } = await serveChannel(
      (channel) => {
        channel.push({ id: 'p', retry: 1000 });
        channel.push({ id: 'e1', message: message(1) });
        channel.push({ id: 'e2', message: { jsonrpc: '2.0', id: 7, result: { content: [] } } });
        channel.end();
      },
      (channel) => tracking.watch(channel),
    );
    tracking.end();
    expect(parseSse(body).map((e) => e.id)).toEqual(['p', 'e1', 'e2']);
    expect(writes).toHaveLength(1);
    expect(events.find((event) => event.type === 'request.end')).toMatchObject({ outcome: 'ok' });
  });

  test('events that arrive a few promise steps apart in the same tick share one write (a stored response after its priming event)', async () => {
    const { body, writes } = await serveChannel((channel) => {
      channel.push({ id: 'p', retry: 1000 });
      // As an EventStore's acknowledgement does: the response comes after the writer has taken the priming event.
      void Promise.resolve()
        .then(() => Promise.resolve())
        .then(() => {
          channel.push({ id: 'e1', message: { jsonrpc: '2.0', id: 1, result: { content: [] } } });
          channel.end();
        });
    });
    expect(parseSse(body).map((e) => e.id)).toEqual(['p', 'e1']);
    expect(writes).toHaveLength(1);
  });

  test('an event is not held back past its tick: one that comes later gets a write of its own', async () => {
    const { body, writes } = await serveChannel((channel) => {
      channel.push({ id: 'p', retry: 1000 });
      setTimeout(() => {
        channel.push({ id: 'e1', message: { jsonrpc: '2.0', id: 1, result: { content: [] } } });
        channel.end();
      }, 30);
    });
    expect(parseSse(body).map((e) => e.id)).toEqual(['p', 'e1']);
    expect(writes).toHaveLength(2);
  });

  test('a stream that ends within its first tick is one body with its Content-Length, the extra headers kept', async () => {
    const { body, writes, headers } = await serveChannel(
      (channel) => {
        channel.push({ id: 'p', retry: 1000 });
        void Promise.resolve().then(() => {
          channel.push({ id: 'e1', message: { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'é' }] } } });
          channel.end();
        });
      },
      undefined,
      { 'Mcp-Session-Id': 'abc' },
    );
    expect(parseSse(body).map((e) => e.id)).toEqual(['p', 'e1']);
    expect(writes).toHaveLength(1);
    // Bytes, not characters: the body holds a two-byte character.
    expect(headers.get('content-length')).toBe(String(Buffer.byteLength(body)));
    expect(headers.get('transfer-encoding')).toBeNull();
    expect(headers.get('content-type')).toBe('text/event-stream');
    expect(headers.get('cache-control')).toBe('no-cache, no-transform');
    expect(headers.get('x-accel-buffering')).toBe('no');
    expect(headers.get('mcp-session-id')).toBe('abc');
  });

  test('a stream with nothing queued when the writer starts is chunked (its headers set at once, for keep-alive comments)', async () => {
    const { body, headers } = await serveChannel((channel) => {
      setTimeout(() => {
        channel.push({ id: 'e1', message: { jsonrpc: '2.0', id: 1, result: { content: [] } } });
        channel.end();
      }, 20);
    });
    expect(parseSse(body).map((e) => e.id)).toEqual(['e1']);
    expect(headers.get('transfer-encoding')).toBe('chunked');
  });

  test('the priming event reaches the client while the response is still to come', async () => {
    let respond = (): void => undefined;
    const server = http.createServer((_req, res) => {
      const channel = new SseChannel();
      channel.push({ id: 'p', retry: 1000 });
      respond = () => {
        channel.push({ id: 'e1', message: { jsonrpc: '2.0', id: 1, result: { content: [] } } });
        channel.end();
      };
      void writeStream(res, channel, { keepAlive: new KeepAliveTicker(0) });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const response = await fetch(`http://127.0.0.1:${port}/`);
      expect(response.headers.get('content-length')).toBeNull();
      expect(response.headers.get('transfer-encoding')).toBe('chunked');
      const reader = response.body!.getReader();
      expect(new TextDecoder().decode((await reader.read()).value)).toBe('id: p\nretry: 1000\ndata: \n\n');
      respond();
      let rest = '';
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) rest += new TextDecoder().decode(chunk.value);
      expect(parseSse(rest).map((e) => e.id)).toEqual(['e1']);
    } finally {
      server.close();
    }
  });

  test('a client that leaves before the first write detaches the stream, and the writer returns', async () => {
    let detached = false;
    let written: Promise<void> | undefined;
    const server = http.createServer((req, res) => {
      const channel = new SseChannel();
      channel.onDetach(() => (detached = true));
      channel.push({ id: 'p', retry: 1000 });
      written = writeStream(res, channel, { keepAlive: new KeepAliveTicker(0) });
      req.socket.destroy(); // before the end of the tick
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      await expect(fetch(`http://127.0.0.1:${port}/`)).rejects.toThrow();
      await expect(written).resolves.toBeUndefined();
      expect(detached).toBe(true);
    } finally {
      server.close();
    }
  });
});

/** Serves one request with `handle`, fetches it once; the response body, or the fetch's failure. */
async function serveOnce(handle: (req: http.IncomingMessage, res: http.ServerResponse) => void): Promise<string> {
  const server = http.createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    return await (await fetch(`http://127.0.0.1:${port}/`)).text();
  } finally {
    server.close();
  }
}

describe('followStream', () => {
  test('writes a channel without making a promise, from the first event to the end, and calls ended once', async () => {
    let promises = -1;
    const endings: unknown[][] = [];
    const body = await serveOnce((_req, res) => {
      let made = 0;
      const stop = promiseHooks.onInit(() => made++);
      const channel = new SseChannel();
      channel.push({ id: 'p', retry: 1000 });
      followStream(res, channel, { keepAlive: new KeepAliveTicker(0) }, (...args) => endings.push(args));
      stop();
      // The response comes from a timer, after the writer has taken the priming event and waits for more.
      setTimeout(() => {
        const again = promiseHooks.onInit(() => made++);
        channel.push({ id: 'e1', message: { jsonrpc: '2.0', id: 1, result: { content: [] } } });
        channel.end();
        again();
        promises = made;
      }, 20);
    });
    expect(parseSse(body).map((e) => e.id)).toEqual(['p', 'e1']);
    expect(promises).toBe(0);
    expect(endings).toEqual([[]]);
  });

  test('an event that cannot be written ends the response, detaches the channel and hands ended the error', async () => {
    let channel: SseChannel | undefined;
    let detached = false;
    const endings: unknown[] = [];
    const body = await serveOnce((_req, res) => {
      channel = new SseChannel();
      channel.onDetach(() => (detached = true));
      followStream(res, channel, { keepAlive: new KeepAliveTicker(0) }, (error) => {
        endings.push(error);
        res.destroy();
      });
      setTimeout(() => {
        channel!.push({ id: 'e1', message: message(1) });
        // JSON cannot carry a BigInt: formatting this event throws inside the producer's push, which must not.
        expect(channel!.push({ id: 'e2', message: { jsonrpc: '2.0', method: 'notifications/message', params: { n: 10n } } })).toBe(true);
      }, 10);
    }).catch((error: unknown) => `failed: ${String(error)}`);
    expect(body).toMatch(/^failed|id: e1/);
    expect(endings).toHaveLength(1);
    expect(endings[0]).toBeInstanceOf(TypeError);
    expect(detached).toBe(true);
    expect(channel!.isOpen).toBe(false);
  });

  test('a client that leaves while the writer waits for the next event detaches the channel and ends once', async () => {
    let detached = false;
    let channel: SseChannel | undefined;
    const endings: unknown[][] = [];
    const server = http.createServer((_req, res) => {
      channel = new SseChannel();
      channel.onDetach(() => (detached = true));
      channel.push({ id: 'p', retry: 1000 });
      followStream(res, channel, { keepAlive: new KeepAliveTicker(0) }, (...args) => endings.push(args));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const controller = new AbortController();
      const response = await fetch(`http://127.0.0.1:${port}/`, { signal: controller.signal });
      const reader = response.body!.getReader();
      expect(new TextDecoder().decode((await reader.read()).value)).toBe('id: p\nretry: 1000\ndata: \n\n');
      controller.abort();
      const deadline = Date.now() + 3000;
      while (!detached && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
      expect(detached).toBe(true);
      expect(endings).toEqual([[]]);
      // Nothing more is taken once the client left: a later push is refused by the detached channel.
      expect(channel!.push({ id: 'late', message: message(2) })).toBe(false);
      expect(endings).toHaveLength(1);
    } finally {
      server.close();
    }
  });
});
