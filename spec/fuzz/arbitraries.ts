/**
 * Generators of the fuzz suite: hostile JSON (prototype keys, values whose `String()` throws, deep nesting, every
 * Unicode code point, numbers JSON cannot hold exactly, duplicate keys), request-shaped bodies for every MCP
 * method in both eras, and header sets (versions, session ids, Last-Event-ID, the SEP-2243 `Mcp-*` headers,
 * duplicates). Values are built as JS objects and written with `encode`, which keeps `__proto__` keys and
 * writes `RawJson` fragments as they are, so the wire carries exactly what was generated.
 */
import fc from 'fast-check';
import { META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_PROTOCOL_VERSION, MODERN, PROMPT_NAMES, RESOURCE_TEMPLATE, SESSION_VERSIONS, STATIC_RESOURCE, TOOL_NAMES } from './fixture.js';

// ---------------------------------------------------------------------------------------------------------------
// Encoding

/** A JSON fragment written as is: numbers JS cannot represent, duplicate keys, nesting deeper than a generator goes. */
export class RawJson {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

/** An object whose keys are all own, enumerable data properties, `__proto__` included. */
export function obj(entries: ReadonlyArray<readonly [string, unknown]>): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const [key, value] of entries) Object.defineProperty(result, key, { value, enumerable: true, writable: true, configurable: true });
  return result;
}

/** JSON text of a generated value (RawJson written verbatim; undefined members left out as JSON.stringify does). */
export function encode(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  if (Array.isArray(value)) return `[${value.map((item) => (item === undefined ? 'null' : encode(item))).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const members: string[] = [];
    for (const key of Object.keys(value)) {
      const member = (value as Record<string, unknown>)[key];
      if (member !== undefined) members.push(`${JSON.stringify(key)}:${encode(member)}`);
    }
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Valid header value text (what Node lets a client send): tab, visible ASCII, space, and obs-text bytes. */
export function isSendableHeaderValue(value: string): boolean {
  return !/[^\t\x20-\x7E\x80-\xFF]/.test(value);
}

/** `=?base64?…?=` of the UTF-8 bytes of `text` (SEP-2243's encoding for values a header cannot carry). */
export function base64Sentinel(text: string): string {
  return `=?base64?${Buffer.from(text, 'utf8').toString('base64')}?=`;
}

/** How a body field is mirrored in a header: as is when a header can carry it, else base64 in the sentinel. */
export function headerMirror(value: string): string {
  return isSendableHeaderValue(value) && value.trim() === value && !value.startsWith('=?base64?') ? value : base64Sentinel(value);
}

// ---------------------------------------------------------------------------------------------------------------
// Leaves

export const PROTOTYPE_KEYS = ['__proto__', 'constructor', 'toString', 'valueOf', 'hasOwnProperty', 'isPrototypeOf', 'propertyIsEnumerable', 'toLocaleString', 'then', 'toJSON', 'prototype', 'length'] as const;

export const prototypeKey = fc.constantFrom(...PROTOTYPE_KEYS);

const MCP_KEYS = [
  'jsonrpc', 'id', 'method', 'params', 'result', 'error', 'code', 'message', 'data', '_meta', 'name', 'uri', 'arguments', 'ref', 'argument',
  'value', 'type', 'context', 'requestState', 'inputResponses', 'protocolVersion', 'capabilities', 'clientInfo', 'cursor', 'level', 'requestId',
  'progressToken', 'notifications', 'text', 'region', 'count', META_PROTOCOL_VERSION, META_CLIENT_CAPABILITIES, META_CLIENT_INFO,
  'io.modelcontextprotocol/logLevel', 'io.modelcontextprotocol/subscriptionId',
];

export const anyKey: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: prototypeKey },
  { weight: 3, arbitrary: fc.constantFrom(...MCP_KEYS) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 12 }) },
  { weight: 1, arbitrary: fc.constantFrom('', ' ', '\u0000', '\ud800', 'a.b', 'a/b', 'x'.repeat(300)) },
);

/** Objects whose `String()` throws or lies, and objects that look like something special to JS. */
export const trickyObject: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  fc.constantFrom(
    obj([['toString', 1]]),
    obj([['toString', {}]]),
    obj([['toString', null]]),
    obj([['toString', 'x'], ['valueOf', 'y']]),
    obj([['valueOf', 1], ['toString', 1]]),
    obj([['__proto__', null]]),
    obj([['__proto__', { toString: 1 }]]),
    obj([['__proto__', []]]),
    obj([['constructor', { prototype: { polluted: true } }]]),
    obj([['toJSON', 1]]),
    obj([['then', 1]]),
    obj([['length', -1]]),
    obj([['length', 1e9]]),
  ),
  fc.tuple(prototypeKey, fc.oneof(fc.integer(), fc.constant({}), fc.constant([]), fc.constant(null), fc.string({ maxLength: 5 }))).map(([key, value]) => obj([[key, value]])),
);

/** Values whose `String()` throws: what a careless error message or comparison trips on. */
export const unprintable: fc.Arbitrary<Record<string, unknown>> = fc.constantFrom(
  obj([['toString', 1]]),
  obj([['toString', {}]]),
  obj([['toString', null], ['valueOf', null]]),
  obj([['toString', 'x'], ['valueOf', 'y']]),
);

export const nastyString: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 3, arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }) },
  { weight: 2, arbitrary: fc.string({ maxLength: 20 }) },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      '',
      ' ',
      '\u0000',
      '\ud800',
      '\udfff',
      '\ud83d\ude00',
      '\u2028\u2029',
      '\r\n',
      '\n\ndata: injected\n\n',
      'é',
      '\u00ff\u0100',
      '%00',
      '../../etc/passwd',
      'fixture://items/{id}',
      'fixture://items/',
      'fixture://items/%zz',
      '=?base64?',
      '=?base64?AAAA?=',
      '=?base64?not base64?=',
      '=?base64?/w==?=',
      '__proto__',
      'constructor',
      'x'.repeat(17_000),
      '2026-07-28',
      '2025-11-25',
      '9999-99-99',
      'null',
      'undefined',
      '[object Object]',
    ),
  },
);

/** Numbers a JSON parser may not hold exactly, written as raw JSON. */
export const rawNumber: fc.Arbitrary<RawJson> = fc
  .constantFrom(
    '1e400', '-1e400', '1E+308', '4.9e-324', '1e-400', '-0', '0.0', '-0.0e-0', '9007199254740993', '123456789012345678901234567890',
    '-9223372036854775808', '1.5', '1e21', '0.1e1', '1E2',
  )
  .map((text) => new RawJson(text));

export const number: fc.Arbitrary<unknown> = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(0, -1, 2 ** 31, 2 ** 53, -(2 ** 53), Number.MAX_SAFE_INTEGER + 2, 1e21, Number.MAX_VALUE, Number.MIN_VALUE),
  rawNumber,
);

/** Nesting deeper than any real message: arrays, objects, or a mix, to a depth of up to 20000. */
export const deepNesting: fc.Arbitrary<RawJson> = fc
  .tuple(fc.constantFrom(1, 63, 64, 65, 100, 1000, 5000, 20_000), fc.constantFrom('array', 'object', 'mixed'))
  .map(([depth, kind]) => {
    if (kind === 'array') return new RawJson('['.repeat(depth) + ']'.repeat(depth));
    if (kind === 'object') return new RawJson('{"a":'.repeat(depth) + '1' + '}'.repeat(depth));
    return new RawJson('{"a":['.repeat(depth) + '{}' + ']}'.repeat(depth));
  });

export const leaf: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: nastyString },
  { weight: 3, arbitrary: number },
  { weight: 1, arbitrary: fc.boolean() },
  { weight: 1, arbitrary: fc.constant(null) },
  { weight: 2, arbitrary: trickyObject },
  { weight: 1, arbitrary: deepNesting },
);

/** Any JSON value, hostile at every level: prototype keys, tricky objects, deep nesting, unicode, odd numbers. */
export const hostileValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    { weight: 5, arbitrary: leaf },
    { weight: 1, arbitrary: fc.array(tie('value'), { maxLength: 4 }) },
    { weight: 2, arbitrary: fc.array(fc.tuple(anyKey, tie('value')), { maxLength: 5 }).map(obj) },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  ),
})).value;

/** A value that is sometimes well-formed (`good`) and otherwise anything hostile. */
function mostly<T>(good: fc.Arbitrary<T>, goodWeight = 3): fc.Arbitrary<unknown> {
  return fc.oneof({ weight: goodWeight, arbitrary: good as fc.Arbitrary<unknown> }, { weight: 1, arbitrary: hostileValue });
}

// ---------------------------------------------------------------------------------------------------------------
// Request-shaped bodies

export const MCP_METHODS = [
  'initialize',
  'ping',
  'tools/list',
  'tools/call',
  'prompts/list',
  'prompts/get',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'resources/subscribe',
  'resources/unsubscribe',
  'completion/complete',
  'logging/setLevel',
  'server/discover',
  'subscriptions/listen',
  'tasks/get',
  'tasks/list',
  'tasks/cancel',
  'sampling/createMessage',
  'elicitation/create',
  'roots/list',
  'notifications/initialized',
  'notifications/cancelled',
  'notifications/progress',
  'notifications/roots/list_changed',
  'notifications/message',
] as const;

/** The methods whose params reach the most code (names, URIs, completions, versions, filters). */
const DEEP_METHODS = ['tools/call', 'prompts/get', 'resources/read', 'completion/complete', 'initialize', 'subscriptions/listen', 'resources/subscribe'] as const;

export const method: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...DEEP_METHODS) },
  { weight: 8, arbitrary: fc.constantFrom(...MCP_METHODS) },
  { weight: 1, arbitrary: nastyString },
  { weight: 1, arbitrary: fc.constantFrom('', 'TOOLS/CALL', 'tools/call ', 'rpc.discover', '__proto__', 'constructor', 'toString', 'hasOwnProperty') },
  { weight: 1, arbitrary: hostileValue },
);

/** Ids: valid (strings, integers) most of the time; then null, fractions, objects, huge numbers. */
export const requestId: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.integer() },
  { weight: 3, arbitrary: nastyString },
  { weight: 1, arbitrary: fc.constantFrom(0, -0, 2 ** 53, -(2 ** 53), 1e21, 'probe', '') },
  { weight: 2, arbitrary: hostileValue },
);

const toolName = fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...TOOL_NAMES) }, { weight: 1, arbitrary: prototypeKey }, { weight: 2, arbitrary: nastyString }, { weight: 1, arbitrary: trickyObject }, { weight: 1, arbitrary: unprintable });
const promptName = fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...PROMPT_NAMES) }, { weight: 1, arbitrary: prototypeKey }, { weight: 1, arbitrary: nastyString }, { weight: 1, arbitrary: trickyObject }, { weight: 1, arbitrary: unprintable });
const resourceUri = fc.oneof(
  { weight: 3, arbitrary: fc.constant(STATIC_RESOURCE) },
  { weight: 3, arbitrary: nastyString.map((tail) => `fixture://items/${tail}`) },
  { weight: 1, arbitrary: fc.constant(RESOURCE_TEMPLATE) },
  { weight: 2, arbitrary: nastyString },
  { weight: 1, arbitrary: trickyObject },
  { weight: 1, arbitrary: unprintable },
);
const toolArguments: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ text: mostly(nastyString) }, { requiredKeys: [] }) },
  { weight: 3, arbitrary: fc.record({ region: mostly(nastyString), count: mostly(number) }, { requiredKeys: [] }) },
  { weight: 1, arbitrary: fc.record({ how: fc.constantFrom('plain', 'mcp') }) },
  { weight: 2, arbitrary: hostileValue },
);
const inputResponses = fc.oneof(
  fc.dictionary(fc.oneof(fc.constantFrom('name', 'first', 'second'), anyKey), mostly(fc.record({ action: fc.constantFrom('accept', 'decline', 'cancel'), content: fc.dictionary(fc.string(), fc.string()) }))),
  hostileValue,
);
const requestState = fc.oneof(fc.constantFrom('', '.', 'abc.def', 'e30.AAAA'), nastyString, hostileValue);
const version = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...SESSION_VERSIONS, MODERN) },
  { weight: 1, arbitrary: fc.constantFrom('2024-11-05', '2025-12-31', '2026-07-29', '9999-12-31', '2025-11-25 ', 'DRAFT-2026-v1') },
  { weight: 1, arbitrary: nastyString },
  { weight: 1, arbitrary: trickyObject },
  { weight: 1, arbitrary: unprintable },
);
const capabilities = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom({}, { elicitation: {} }, { sampling: {}, elicitation: {}, roots: { listChanged: true } }, { roots: {} }) },
  { weight: 2, arbitrary: hostileValue },
);
const clientInfo = fc.oneof({ weight: 3, arbitrary: fc.record({ name: mostly(nastyString), version: mostly(nastyString) }) }, { weight: 1, arbitrary: hostileValue });

/** Params of each method: mostly its own fields, sometimes anything. */
function paramsFor(methodName: unknown): fc.Arbitrary<Record<string, unknown>> {
  switch (methodName) {
    case 'tools/call':
      return fc.record({ name: toolName, arguments: toolArguments, inputResponses, requestState }, { requiredKeys: ['name'] });
    case 'prompts/get':
      return fc.record({ name: promptName, arguments: mostly(fc.dictionary(fc.oneof(fc.constant('name'), anyKey), nastyString)), inputResponses, requestState }, { requiredKeys: ['name'] });
    case 'resources/read':
    case 'resources/subscribe':
    case 'resources/unsubscribe':
      return fc.record({ uri: resourceUri, inputResponses, requestState }, { requiredKeys: ['uri'] });
    case 'completion/complete':
      return fc.record(
        {
          ref: mostly(
            fc.oneof(
              fc.record({ type: fc.constant('ref/prompt'), name: fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...PROMPT_NAMES) }, promptName) }),
              fc.record({ type: fc.constant('ref/resource'), uri: fc.oneof({ weight: 3, arbitrary: fc.constant(RESOURCE_TEMPLATE) }, resourceUri) }),
              fc.record({ type: fc.oneof(nastyString, prototypeKey), name: nastyString, uri: nastyString }, { requiredKeys: [] }),
            ),
          ),
          argument: mostly(fc.record({ name: fc.oneof({ weight: 3, arbitrary: fc.constantFrom('name', 'id') }, { weight: 3, arbitrary: prototypeKey }, nastyString, trickyObject, unprintable), value: fc.oneof(nastyString, unprintable, hostileValue) }, { requiredKeys: ['name'] })),
          context: mostly(fc.record({ arguments: mostly(fc.dictionary(anyKey, nastyString)) })),
        },
        { requiredKeys: [] },
      );
    case 'logging/setLevel':
      return fc.record({ level: mostly(fc.constantFrom('debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency')) });
    case 'initialize':
      return fc.record({ protocolVersion: version, capabilities, clientInfo }, { requiredKeys: [] });
    case 'subscriptions/listen':
      return fc.record({
        notifications: mostly(
          fc.record(
            { toolsListChanged: mostly(fc.boolean()), promptsListChanged: mostly(fc.boolean()), resourcesListChanged: mostly(fc.boolean()), resourceSubscriptions: mostly(fc.array(resourceUri, { maxLength: 3 })) },
            { requiredKeys: [] },
          ),
        ),
      });
    case 'notifications/cancelled':
      return fc.record({ requestId, reason: mostly(nastyString) }, { requiredKeys: [] });
    case 'notifications/progress':
      return fc.record({ progressToken: requestId, progress: number, total: number }, { requiredKeys: [] });
    default:
      return fc.oneof(fc.constant({}), fc.record({ cursor: mostly(nastyString) }, { requiredKeys: [] }), fc.dictionary(anyKey, hostileValue, { maxKeys: 4 }).map((entries) => obj(Object.entries(entries))));
  }
}

/** A 2026-07-28 `_meta` envelope: valid most of the time, every field sometimes wrong or missing. */
export const envelopeMeta: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .record(
        {
          version: fc.oneof({ weight: 5, arbitrary: fc.constant(MODERN) }, { weight: 1, arbitrary: version }),
          capabilities: fc.oneof({ weight: 4, arbitrary: fc.constantFrom({}, { elicitation: {} }, { sampling: {}, elicitation: {}, roots: {} }) }, { weight: 1, arbitrary: hostileValue }),
          clientInfo: fc.option(clientInfo, { nil: undefined }),
          logLevel: fc.option(fc.oneof(fc.constantFrom('debug', 'error'), hostileValue), { nil: undefined }),
          extra: fc.dictionary(anyKey, hostileValue, { maxKeys: 2 }),
          drop: fc.subarray([META_PROTOCOL_VERSION, META_CLIENT_CAPABILITIES, META_CLIENT_INFO], { maxLength: 1 }),
        },
      )
      .map(({ version: v, capabilities: c, clientInfo: i, logLevel, extra, drop }) => {
        const entries: Array<[string, unknown]> = [...Object.entries(extra)];
        entries.push([META_PROTOCOL_VERSION, v], [META_CLIENT_CAPABILITIES, c]);
        if (i !== undefined) entries.push([META_CLIENT_INFO, i]);
        if (logLevel !== undefined) entries.push(['io.modelcontextprotocol/logLevel', logLevel]);
        return obj(entries.filter(([key]) => !drop.includes(key)));
      }),
  },
  { weight: 1, arbitrary: hostileValue },
);

export type Era = 'session' | 'sessionless' | 'modern';

export interface RequestCase {
  era: Era;
  /** Session-era protocol version the case speaks (its session's, or its header's). */
  version: (typeof SESSION_VERSIONS)[number];
  /** The message, as generated (a request, a notification, a response, or something close to one). */
  message: Record<string, unknown>;
  /** Header lines of the case beyond the well-behaved ones (Mcp-Method, Mcp-Name, Mcp-Param-*, version override). */
  extraHeaders: string[];
  /** For session and modern cases: the version header to send (undefined: leave it out; 'match': the case's). */
  versionHeader: string | 'match' | undefined;
}

/** A message with a method (or a client response), with or without an id, for one era. */
function messageFor(era: Era): fc.Arbitrary<Record<string, unknown>> {
  return fc
    .tuple(method, fc.option(requestId, { nil: undefined, freq: 6 }), fc.integer({ min: 0, max: 19 }), envelopeMeta, fc.boolean(), hostileValue)
    .chain(([m, id, shape, meta, withMeta, hostileParams]) =>
      paramsFor(m).map((params) => {
        const message: Record<string, unknown> = { jsonrpc: '2.0' };
        if (id !== undefined) message.id = id;
        if (shape === 0) {
          // A response from the client (an answer to a server request), or something response-like.
          if (id === undefined) message.id = 'x';
          if (withMeta) message.result = params;
          else message.error = { code: -32000, message: 'client error' };
          return message;
        }
        message.method = m;
        if (shape === 1) message.params = hostileParams;
        else if (shape === 2) delete message.jsonrpc;
        else if (shape === 3) message.jsonrpc = '1.0';
        else if (shape !== 4) {
          const withEnvelope = era === 'modern' || (withMeta && shape === 5);
          message.params = withEnvelope ? obj([...Object.entries(params), ['_meta', meta]]) : params;
        }
        return message;
      }),
    );
}

/** The SEP-2243 headers a 2026-07-28 request carries: matching the body, mismatching, encoded, or missing. */
function standardHeaders(message: Record<string, unknown>): fc.Arbitrary<string[]> {
  const params = (message.params ?? {}) as Record<string, unknown>;
  const m = message.method;
  const nameField = m === 'resources/read' ? 'uri' : m === 'tools/call' || m === 'prompts/get' ? 'name' : m === 'tasks/get' || m === 'tasks/cancel' ? 'taskId' : undefined;
  const bodyName = nameField === undefined ? undefined : params[nameField];
  const args = (params.arguments ?? {}) as Record<string, unknown>;
  const headerText = fc.oneof(fc.string({ unit: fc.constantFrom(...'\t abcXYZ019-_./:=?%'.split(''), '\u00e9', '\u00ff'), maxLength: 20 }), fc.constantFrom('=?base64?', '=?base64?####?=', '=?base64?/w==?=', '=?base64??=', ' '));
  // A body value a header can mirror is mirrored (as is, or base64); for any other value a client sends
  // something anyway (or nothing), so the server compares a header with a value that is not text.
  const mirror = (value: unknown): fc.Arbitrary<string | undefined> =>
    typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
      ? fc.oneof(
          { weight: 5, arbitrary: fc.constant(typeof value === 'string' ? headerMirror(value) : String(value)) },
          { weight: 1, arbitrary: fc.constant(base64Sentinel(String(value))) },
          { weight: 1, arbitrary: fc.constant(undefined) },
          { weight: 1, arbitrary: headerText },
        )
      : fc.oneof({ weight: 3, arbitrary: headerText }, { weight: 1, arbitrary: fc.constantFrom(undefined, '[object Object]', 'null') });
  return fc
    .record({
      method: fc.oneof({ weight: 6, arbitrary: fc.constant(typeof m === 'string' && isSendableHeaderValue(m) ? m : undefined) }, { weight: 1, arbitrary: fc.option(headerText, { nil: undefined }) }, { weight: 1, arbitrary: fc.constantFrom(' tools/call', 'TOOLS/CALL', 'ping') }),
      name: mirror(bodyName),
      region: mirror(args.region),
      count: fc.oneof(mirror(args.count), fc.constantFrom('0x10', '1e1', ' 1', '1.0', '-0')),
      extra: fc.array(fc.tuple(fc.constantFrom('Mcp-Param-Region', 'Mcp-Param-region', 'Mcp-Name', 'Mcp-Method', 'Mcp-Param-Unknown', 'Mcp-Param-', 'Mcp-Foo'), headerText), { maxLength: 2 }),
    })
    .map(({ method: methodHeader, name, region, count, extra }) => {
      const lines: string[] = [];
      if (methodHeader !== undefined) lines.push('Mcp-Method', methodHeader);
      if (name !== undefined) lines.push('Mcp-Name', name);
      if (region !== undefined) lines.push('Mcp-Param-Region', region);
      if (count !== undefined) lines.push('Mcp-Param-Count', count);
      for (const [headerName, value] of extra) lines.push(headerName, value);
      return lines;
    });
}

/** A request-shaped case of one era, with the headers a client of that era sends (sometimes mismatched). */
export function requestCase(era: Era): fc.Arbitrary<RequestCase> {
  return fc.tuple(messageFor(era), fc.constantFrom(...SESSION_VERSIONS), fc.oneof({ weight: 8, arbitrary: fc.constant<'match'>('match') }, { weight: 1, arbitrary: fc.constant(undefined) }, { weight: 2, arbitrary: version.map((v) => (typeof v === 'string' && isSendableHeaderValue(v) ? v : 'match')) })).chain(
    ([message, v, versionHeader]) =>
      (era === 'modern' ? standardHeaders(message) : fc.constant<string[]>([])).map((extraHeaders) => ({ era, version: v, message, extraHeaders, versionHeader })),
  );
}

// ---------------------------------------------------------------------------------------------------------------
// Bodies

/** What property 1 POSTs: any JSON value, a batch, deep nesting, duplicate keys, or bytes that are not JSON. */
export const anyBody: fc.Arbitrary<string | Buffer> = fc.oneof(
  { weight: 6, arbitrary: hostileValue.map(encode) },
  { weight: 2, arbitrary: fc.array(fc.oneof(hostileValue, messageFor('session')), { maxLength: 4 }).map(encode) },
  { weight: 2, arbitrary: messageFor('modern').map(encode) },
  { weight: 1, arbitrary: deepNesting.map((raw) => raw.text) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '{"jsonrpc":"2.0","id":1,"id":"dup","method":"ping"}',
      '{"jsonrpc":"2.0","id":1,"method":"ping","method":"tools/list"}',
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","name":{"toString":1},"arguments":{"text":"x"}}}',
      '{"__proto__":{"jsonrpc":"2.0","id":1,"method":"ping"}}',
      '{"jsonrpc":"2.0","id":1,"method":"ping","params":{"__proto__":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}}',
      '\ufeff{"jsonrpc":"2.0","id":1,"method":"ping"}',
      '[]',
      '[[]]',
      '',
      ' ',
      'null',
      '"string"',
      '1e400',
    ),
  },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes)) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 64 }) },
);

// ---------------------------------------------------------------------------------------------------------------
// Headers

/** Header values Node can send: tab, space, visible ASCII and obs-text; CR/LF cannot cross the HTTP layer. */
export const headerValue: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)), maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: fc.oneof(fc.constant('\t'), fc.integer({ min: 0x80, max: 0xff }).map((code) => String.fromCharCode(code))), maxLength: 8 }) },
  { weight: 1, arbitrary: fc.constantFrom('', ' ', '\t', ',', ', ,', '*/*', 'x'.repeat(8000)) },
);

/** A header name that is a valid token: Mcp-* names, and a few others. */
export const mcpHeaderName: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('Mcp-Session-Id', 'MCP-Protocol-Version', 'Mcp-Method', 'Mcp-Name', 'Mcp-Param-Region', 'Mcp-Param-Count', 'mcp-session-id', 'Last-Event-ID', 'Mcp-Param-', 'Mcp-'),
  fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.!#$%&\'*+^`|~'.split('')), minLength: 1, maxLength: 12 }).map((tail) => `Mcp-${tail}`),
);

export const acceptValue = fc.oneof(
  { weight: 16, arbitrary: fc.constant('application/json, text/event-stream') },
  { weight: 2, arbitrary: fc.constantFrom('text/event-stream', 'application/json', '*/*', 'text/*', 'application/*', 'text/event-stream;q=0, application/json;q=0', 'APPLICATION/JSON, TEXT/EVENT-STREAM', 'application/jsonx, text/event-streamy', '') },
  { weight: 1, arbitrary: headerValue },
);

export const contentTypeValue = fc.oneof(
  { weight: 16, arbitrary: fc.constant('application/json') },
  { weight: 2, arbitrary: fc.constantFrom('application/json; charset=utf-8', 'Application/JSON', 'application/json;charset=latin1', 'text/plain', 'application/x-www-form-urlencoded', 'application/json-patch+json', ';', '') },
  { weight: 1, arbitrary: headerValue },
);

export const versionValue = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...SESSION_VERSIONS, MODERN) },
  { weight: 1, arbitrary: fc.constantFrom('2024-11-05', '2026-07-29', '2025-11-25, 2026-07-28', ' 2026-07-28', '2026-07-28\t', '0000-00-00', 'zzzz') },
  { weight: 1, arbitrary: headerValue },
);

/** Host values: allowed loopback names, other hosts, broken ones. */
export const hostValue = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom('127.0.0.1', 'localhost', '[::1]', '127.0.0.1:3000', 'LOCALHOST:80') },
  { weight: 1, arbitrary: fc.constantFrom('evil.example', '127.0.0.1.evil.example', '[::1', '127.0.0.1:', 'localhost:99999999999999999999', 'user@localhost', '') },
  { weight: 1, arbitrary: headerValue },
);

export const originValue = fc.oneof(
  { weight: 2, arbitrary: fc.constantFrom('http://127.0.0.1', 'http://localhost:3000', 'https://[::1]:8443', 'null') },
  { weight: 1, arbitrary: fc.constantFrom('http://evil.example', 'file://', 'http://127.0.0.1@evil.example', 'javascript:alert(1)', '') },
  { weight: 1, arbitrary: headerValue },
);

// ---------------------------------------------------------------------------------------------------------------
// Session ids and event ids, built from the real ones a run has seen

const ID_PIECES = ['/', '#', '.', ':', '-', '0', '1', '99999999999', 'stateless', '00000000', 'ffffffff'];

/**
 * Mcp-Session-Id values: the given real ids (alice's, and in isolation runs bob's), mutations of them, and
 * random visible text.
 */
export function sessionIdValue(real: readonly string[]): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...real) },
    { weight: 2, arbitrary: fc.tuple(fc.constantFrom(...real), fc.nat(40), fc.constantFrom(...ID_PIECES, '')).map(([id, at, piece]) => id.slice(0, at % (id.length + 1)) + piece) },
    { weight: 1, arbitrary: fc.constantFrom(...real).map((id) => id.toUpperCase()) },
    { weight: 1, arbitrary: fc.constantFrom(...real).map((id) => `${id}, ${id}`) },
    { weight: 2, arbitrary: headerValue },
  );
}

/**
 * Last-Event-ID values: real ids, ids spliced from two real ones (another principal's stream with one's own
 * session or tag), ids with their numbers changed, and random text.
 */
export function lastEventIdValue(real: readonly string[]): fc.Arbitrary<string> {
  if (real.length === 0) return headerValue;
  const pick = fc.constantFrom(...real);
  return fc.oneof(
    { weight: 3, arbitrary: pick },
    {
      weight: 3,
      arbitrary: fc.tuple(pick, pick, fc.nat(80), fc.nat(80)).map(([a, b, i, j]) => a.slice(0, i % (a.length + 1)) + b.slice(j % (b.length + 1))),
    },
    {
      weight: 2,
      arbitrary: fc.tuple(pick, fc.constantFrom('0', '1', '2', '-1', '999999999999999', '00', '1e3', '')).map(([id, digits]) => id.replace(/\d+$/, digits)),
    },
    { weight: 1, arbitrary: fc.tuple(pick, fc.constantFrom(...ID_PIECES)).map(([id, piece]) => id + piece) },
    { weight: 1, arbitrary: headerValue },
  );
}
