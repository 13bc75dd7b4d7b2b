/**
 * What every answer of the fuzz suite must satisfy, whatever was sent: a status below 500, a JSON-RPC error
 * body on every 4xx, well-formed JSON-RPC on every JSON body and SSE event, results shaped as their method
 * promises, and the request's id echoed. Each check throws an Error naming what was wrong, which fast-check
 * reports beside the minimal input.
 */
import type { WireResponse } from './fixture.js';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => value !== null && typeof value === 'object' && !Array.isArray(value);

function fail(res: WireResponse, problem: string): never {
  throw new Error(`${problem}\n  status ${res.status}, content-type ${String(res.headers['content-type'])}\n  body: ${res.text.slice(0, 600)}`);
}

/** A JSON-RPC response object (result or error), as a server may send it. */
function checkResponseObject(res: WireResponse, message: unknown): void {
  if (!isObject(message)) fail(res, 'a JSON body that is not a JSON-RPC object');
  if (message.jsonrpc !== '2.0') fail(res, 'a JSON-RPC response without jsonrpc "2.0"');
  const hasResult = 'result' in message;
  const hasError = 'error' in message;
  if (hasResult === hasError) fail(res, 'a JSON-RPC response needs exactly one of result and error');
  if (hasResult) {
    if (!isObject(message.result)) fail(res, 'a JSON-RPC result that is not an object');
    if (typeof message.id !== 'string' && typeof message.id !== 'number') fail(res, 'a result without a string or number id');
  } else {
    const error = message.error;
    if (!isObject(error) || !Number.isInteger(error.code) || typeof error.message !== 'string') fail(res, 'a JSON-RPC error without an integer code and a string message');
    if (message.id !== undefined && message.id !== null && typeof message.id !== 'string' && typeof message.id !== 'number') fail(res, 'an error response with an id that is neither null, a string nor a number');
  }
}

/** Any JSON-RPC message a server may put on a stream: a response, a request to the client, a notification. */
function checkStreamMessage(res: WireResponse, message: unknown): void {
  if (typeof message === 'string') fail(res, `an SSE event whose data is not JSON: ${message.slice(0, 200)}`);
  if (!isObject(message)) fail(res, 'an SSE event whose data is not a JSON-RPC object');
  if ('method' in message) {
    if (message.jsonrpc !== '2.0' || typeof message.method !== 'string') fail(res, 'a server request or notification without jsonrpc "2.0" and a string method');
    if ('params' in message && !isObject(message.params)) fail(res, 'a server request or notification whose params are not an object');
    return;
  }
  checkResponseObject(res, message);
}

/**
 * The answer is a proper HTTP answer for MCP: below 500; a 4xx carries a JSON-RPC error; JSON bodies are
 * JSON-RPC responses (one, or an array for a batch); SSE events are JSON-RPC messages with no injected fields;
 * 202 and DELETE's 200 have no body; nothing else.
 */
export function checkAnswer(res: WireResponse): void {
  if (res.status < 200 || res.status >= 500) fail(res, `HTTP ${res.status}: every answer must be below 500`);
  const contentType = String(res.headers['content-type'] ?? '');
  if (res.sse) {
    if (res.status !== 200) fail(res, 'an SSE stream with a status other than 200');
    for (const message of res.messages) checkStreamMessage(res, message);
    return;
  }
  if (contentType.startsWith('application/json')) {
    if (res.text === '' || res.json === undefined) fail(res, 'an application/json body that is not JSON');
    if (Array.isArray(res.json)) {
      if (res.status !== 200 || res.json.length === 0) fail(res, 'a JSON array answer that is not a batch of responses');
      for (const message of res.json) checkResponseObject(res, message);
    } else {
      checkResponseObject(res, res.json);
    }
    if (res.status >= 400 && !('error' in (res.json as Json))) fail(res, `HTTP ${res.status} whose body is not a JSON-RPC error`);
    return;
  }
  if (res.status >= 400 && !isNodeParserRefusal(res)) fail(res, `HTTP ${res.status} without a JSON-RPC error body`);
  if (res.text !== '') fail(res, `a body with content-type "${contentType}"`);
}

/**
 * Node's HTTP parser answers some requests itself before any middleware runs (headers over `maxHeaderSize`:
 * 431), with no body, closing the connection. Those are not the middleware's answers.
 */
function isNodeParserRefusal(res: WireResponse): boolean {
  return (res.status === 431 || res.status === 400) && res.text === '' && res.headers['content-type'] === undefined && res.headers.connection === 'close';
}

/** Every message of the answer, JSON or SSE. */
export function messagesOf(res: WireResponse): Json[] {
  if (res.sse) return res.messages.filter(isObject);
  if (Array.isArray(res.json)) return res.json.filter(isObject);
  return isObject(res.json) ? [res.json] : [];
}

/** The responses (results and errors) of the answer, not the server's requests and notifications. */
export function responsesOf(res: WireResponse): Json[] {
  return messagesOf(res).filter((message) => !('method' in message) && ('result' in message || 'error' in message));
}

/** A valid JSON-RPC request id: a string or an integer. */
export function isValidId(id: unknown): id is string | number {
  return typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id));
}

/** Every response in the answer to one request carries that request's id (`===`, so -0 and 0 are the same id). */
export function checkEchoedId(res: WireResponse, id: string | number): void {
  for (const response of responsesOf(res)) {
    if (response.id !== id) fail(res, `the response id ${JSON.stringify(response.id)} is not the request's id ${JSON.stringify(id)}`);
  }
}

const ARRAY_RESULT: Record<string, string> = {
  'tools/list': 'tools',
  'prompts/list': 'prompts',
  'resources/list': 'resources',
  'resources/templates/list': 'resourceTemplates',
  'resources/read': 'contents',
  'prompts/get': 'messages',
  'tools/call': 'content',
};

/** A result has the shape its method promises (a completion is a list of strings, a tool result has content…). */
export function checkResultShape(res: WireResponse, method: unknown): void {
  if (typeof method !== 'string') return;
  for (const response of responsesOf(res)) {
    const result = response.result;
    if (!isObject(result)) continue;
    if (result.resultType === 'input_required') {
      if (!isObject(result.inputRequests) || typeof result.requestState !== 'string') fail(res, `${method}: an input_required result without inputRequests and requestState`);
      continue;
    }
    const field = ARRAY_RESULT[method];
    if (field !== undefined && !Array.isArray(result[field])) fail(res, `${method}: result.${field} is not an array`);
    if (method === 'completion/complete') {
      const completion = result.completion;
      if (!isObject(completion) || !Array.isArray(completion.values) || completion.values.some((value) => typeof value !== 'string')) {
        fail(res, 'completion/complete: result.completion.values is not a list of strings');
      }
      if (completion.values.length > 100) fail(res, 'completion/complete: more than 100 values');
    }
    if (method === 'initialize' && (typeof result.protocolVersion !== 'string' || !isObject(result.capabilities) || !isObject(result.serverInfo))) {
      fail(res, 'initialize: a result without protocolVersion, capabilities and serverInfo');
    }
  }
}
