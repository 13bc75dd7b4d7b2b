/**
 * Event ids come from EventStores, which may be user code: an id with CR, LF or NUL would end the `id:` line and
 * let the rest of it inject SSE fields (a fake event, a fake JSON-RPC message). Such an id is never written: the
 * event goes out without it and `onError` hears of the store's mistake. Unit checks of the SSE formatter and of
 * the field test sit beside the end-to-end one.
 */
import { InMemoryEventStore, LocalSessionManager, type EventStore, type SseEvent, type StoredEvent } from '../../lib/index.js';
import { formatSseFrame, formatStreamEvent } from '../../lib/http/sse-format.js';
import { isSafeSseField } from '../../lib/store/sse-event.js';
import { isResponseTo, openSession, parseSse, postMessage, sseMessages, startHarness, toolCall, type Harness } from '../helpers/http-helpers.js';
import { ErrorLog } from './fixtures.js';

const INJECTION = 'event: injected{sep}data: {"jsonrpc":"2.0","method":"evil"}';

/** Wraps an InMemoryEventStore and appends `suffix` to every id it hands out (and strips it again). */
class SuffixingEventStore implements EventStore {
  private readonly inner = new InMemoryEventStore();
  constructor(private readonly suffix: string) {}

  async storeEvent(streamId: string, event: SseEvent): Promise<string> {
    return (await this.inner.storeEvent(streamId, event)) + this.suffix;
  }
  replayEventsAfter(lastEventId: string): AsyncIterable<StoredEvent> {
    return this.inner.replayEventsAfter(this.strip(lastEventId));
  }
  streamIdOf(eventId: string): string | undefined {
    return this.inner.streamIdOf(this.strip(eventId));
  }
  completeStream(streamId: string): Promise<void> {
    return this.inner.completeStream(streamId);
  }
  isStreamComplete(streamId: string): Promise<boolean> {
    return this.inner.isStreamComplete(streamId);
  }
  private strip(eventId: string): string {
    return eventId.endsWith(this.suffix) ? eventId.slice(0, -this.suffix.length) : eventId;
  }
}

describe('a custom EventStore that returns ids with line breaks or NUL', () => {
  let h: Harness;
  let log: ErrorLog;
  afterEach(async () => {
    await h?.close();
  });

  test.each([
    ['CRLF', '\r\n'],
    ['LF', '\n'],
    ['CR', '\r'],
    ['NUL', '\0'],
  ])('%s: nothing is injected, the result arrives, onError gets a TypeError', async (_label, sep) => {
    log = new ErrorLog();
    const eventStore = new SuffixingEventStore(`x${sep}${INJECTION.replace('{sep}', sep)}`);
    h = await startHarness({ sessionManager: new LocalSessionManager({ eventStore, onError: log.onError }) });
    const sessionId = await openSession(h, '2025-11-25');
    const res = await postMessage(h, '2025-11-25', sessionId, toolCall(5, 'echo', { text: 'safe' }));
    expect(res.status).toBe(200);
    expect(res.text).not.toMatch(/injected|evil|\0/);
    // Every event went out, without an id (none of the store's ids could be written).
    for (const event of parseSse(res.text)) {
      expect(event.id).toBeUndefined();
      expect(event.event === undefined || event.event === 'message').toBe(true);
    }
    expect(sseMessages(res.text).find(isResponseTo(5))).toEqual({ jsonrpc: '2.0', id: 5, result: { content: [{ type: 'text', text: 'safe' }] } });
    expect(sseMessages(res.text).filter((message) => 'method' in message)).toEqual([]);
    expect(log.errors.length).toBeGreaterThan(0);
    for (const error of log.errors) expect(error).toBeInstanceOf(TypeError);
  });

  test('control: a store with well-formed ids has them written', async () => {
    log = new ErrorLog();
    h = await startHarness({ sessionManager: new LocalSessionManager({ eventStore: new SuffixingEventStore('-ok'), onError: log.onError }) });
    const sessionId = await openSession(h, '2025-11-25');
    const res = await postMessage(h, '2025-11-25', sessionId, toolCall(5, 'echo', { text: 'safe' }));
    const ids = parseSse(res.text).map((event) => event.id);
    expect(ids.length).toBeGreaterThan(0);
    for (const id of ids) expect(id).toMatch(/-ok$/);
    expect(log.errors).toEqual([]);
  });
});

describe('formatStreamEvent', () => {
  const message = { jsonrpc: '2.0' as const, id: 1, result: {} };

  test('writes a safe id', () => {
    expect(formatStreamEvent({ id: 'stream#1', message })).toBe('event: message\nid: stream#1\ndata: {"jsonrpc":"2.0","id":1,"result":{}}\n\n');
  });

  test.each([
    ['CRLF', 'a\r\nevent: injected'],
    ['LF', 'a\nevent: injected'],
    ['CR', 'a\revent: injected'],
    ['NUL', 'a\0b'],
    ['1025 characters', 'x'.repeat(1025)],
  ])('drops an unsafe id (%s) from a message event', (_label, id) => {
    expect(formatStreamEvent({ id, message })).toBe('event: message\ndata: {"jsonrpc":"2.0","id":1,"result":{}}\n\n');
  });

  test('drops an unsafe id from a priming event, keeping its retry', () => {
    const frame = formatStreamEvent({ id: 'p\nevent: injected', retry: 1000 });
    expect(frame).toBe('retry: 1000\n\n');
  });

  test('formatSseFrame drops an unsafe event name and id', () => {
    expect(formatSseFrame({ event: 'a\nid: 9', id: 'b\r\nretry: 1', data: 'x' })).toBe('data: x\n\n');
    expect(formatSseFrame({ event: 'ok', id: '7', data: 'x' })).toBe('event: ok\nid: 7\ndata: x\n\n');
  });
});

describe('isSafeSseField', () => {
  test.each([
    ['empty', ''],
    ['digits', '42'],
    ['a store id', 'session/abcd.1#17'],
    ['a stateless store id', 'stateless:tag:uuid#3'],
    ['1024 characters', 'x'.repeat(1024)],
    ['non-ASCII', 'ünïcode ✓'],
  ])('accepts %s', (_label, value) => {
    expect(isSafeSseField(value)).toBe(true);
  });

  test.each([
    ['CR', 'a\rb'],
    ['LF', 'a\nb'],
    ['CRLF', 'a\r\nb'],
    ['NUL', 'a\0b'],
    ['1025 characters', 'x'.repeat(1025)],
    ['a number', 42],
    ['undefined', undefined],
    ['null', null],
    ['an object', {}],
  ])('refuses %s', (_label, value) => {
    expect(isSafeSseField(value)).toBe(false);
  });
});
