import { formatSseFrame, formatStreamEvent, KEEP_ALIVE_FRAME } from '../../lib/http/sse-format.js';
import { parseSse } from '../helpers/http-helpers.js';

describe('formatSseFrame', () => {
  test('single-line data is one data: line, and the frame ends with a blank line', () => {
    expect(formatSseFrame({ data: 'hello' })).toBe('data: hello\n\n');
  });

  test('multi-line data becomes one data: line per line, whatever the line break', () => {
    expect(formatSseFrame({ data: 'a\nb\r\nc\rd' })).toBe('data: a\ndata: b\ndata: c\ndata: d\n\n');
    expect(parseSse(formatSseFrame({ data: 'a\nb\r\nc' }))).toEqual([{ data: 'a\nb\nc', comments: [] }]);
  });

  test('empty lines inside data survive as empty data: lines', () => {
    expect(formatSseFrame({ data: 'a\n\nb' })).toBe('data: a\ndata: \ndata: b\n\n');
    expect(parseSse(formatSseFrame({ data: 'a\n\nb' }))[0].data).toBe('a\n\nb');
  });

  test('event, id and retry come before data', () => {
    expect(formatSseFrame({ event: 'message', id: '1/2', retry: 500, data: 'x' })).toBe('event: message\nid: 1/2\nretry: 500\ndata: x\n\n');
  });
});

describe('formatStreamEvent', () => {
  test('a message is an `event: message` frame with its JSON on one data: line', () => {
    const frame = formatStreamEvent({ id: '3/1', message: { jsonrpc: '2.0', id: 1, result: { text: 'a\nb' } } });
    expect(frame).toBe('event: message\nid: 3/1\ndata: {"jsonrpc":"2.0","id":1,"result":{"text":"a\\nb"}}\n\n');
    expect(JSON.parse(parseSse(frame)[0].data!)).toEqual({ jsonrpc: '2.0', id: 1, result: { text: 'a\nb' } });
  });

  test('a message without an id has no id: line', () => {
    expect(formatStreamEvent({ message: { jsonrpc: '2.0', method: 'notifications/tools/list_changed' } })).toBe(
      'event: message\ndata: {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}\n\n',
    );
  });

  test('a priming event is id + retry + empty data', () => {
    expect(formatStreamEvent({ id: '1/0', retry: 3000 })).toBe('id: 1/0\nretry: 3000\ndata: \n\n');
    expect(parseSse(formatStreamEvent({ id: '1/0', retry: 3000 }))).toEqual([{ id: '1/0', retry: 3000, data: '', comments: [] }]);
  });

  test('the keep-alive frame is a comment', () => {
    expect(KEEP_ALIVE_FRAME).toBe(':\n\n');
    expect(parseSse(KEEP_ALIVE_FRAME)).toEqual([{ comments: [''] }]);
  });
});
