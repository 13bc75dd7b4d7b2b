/**
 * A `requestState` is accepted only in the exact spelling the server sealed: unpadded base64url, `-_` alphabet,
 * no stray characters, no other last character carrying the same bytes. Node's base64url decoder accepts all of
 * those, so one signature had many accepted spellings; each is now -32602 "Invalid requestState", and the
 * untouched token still completes the request.
 */
import { callTool, envelope, resultOf, startModern, textOf, type ModernHarness, type Reply } from '../helpers/modern.js';

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const ELICIT = envelope({}, { elicitation: {} });
const ANSWER = { user_name: { action: 'accept', content: { name: 'Alice' } } };

let h: ModernHarness;
/** A sealed state whose signature has a `-` or `_` in it (so the `+/` spelling differs). */
let token: string;

beforeAll(async () => {
  h = await startModern({ requestStateSecret: 'a-shared-secret-of-32-bytes-long!' });
  for (let attempt = 0; attempt < 50; attempt++) {
    const candidate = await freshState();
    if (/[-_]/.test(signatureOf(candidate))) {
      token = candidate;
      return;
    }
  }
  throw new Error('no requestState with "-" or "_" in its signature in 50 attempts');
});
afterAll(() => h.close());

async function freshState(): Promise<string> {
  const first = resultOf(await callTool(h.port, 'greet', {}, { meta: ELICIT }));
  expect(first.resultType).toBe('input_required');
  return first.requestState as string;
}

function bodyOf(state: string): string {
  return state.slice(0, state.indexOf('.'));
}

function signatureOf(state: string): string {
  return state.slice(state.indexOf('.') + 1);
}

function retry(requestState: string): Promise<Reply> {
  return callTool(h.port, 'greet', {}, { meta: ELICIT, params: { inputResponses: ANSWER, requestState } });
}

function expectInvalidState(reply: Reply): void {
  expect(reply.status).toBe(400);
  expect(reply.json?.error).toEqual({ code: -32602, message: expect.stringMatching(/^Invalid requestState/) });
}

/** The signature's last character swapped for the next one: base64url's 43rd character carries 2 unused bits. */
function sameBytesLastCharacter(signature: string): string {
  const last = BASE64URL.indexOf(signature[signature.length - 1]);
  expect(last % 4).toBe(0);
  return signature.slice(0, -1) + BASE64URL[last + 1];
}

function withStray(text: string, stray: string): string {
  const middle = Math.floor(text.length / 2);
  return text.slice(0, middle) + stray + text.slice(middle);
}

describe('other spellings of the same signature', () => {
  const variants: Array<[string, (signature: string) => string]> = [
    ['"=" padding appended', (signature) => `${signature}=`],
    ['"==" padding appended', (signature) => `${signature}==`],
    ['the +/ alphabet', (signature) => signature.replace(/-/g, '+').replace(/_/g, '/')],
    ['another last character with the same bytes', sameBytesLastCharacter],
    ['a stray "!"', (signature) => withStray(signature, '!')],
    ['a stray "."', (signature) => withStray(signature, '.')],
    ['a stray space', (signature) => withStray(signature, ' ')],
    ['a trailing newline', (signature) => `${signature}\n`],
  ];

  test.each(variants)('%s: -32602 Invalid requestState', async (_label, respell) => {
    const signature = signatureOf(token);
    const variant = respell(signature);
    // The variant is another text for the very same signature bytes: only its spelling is wrong.
    expect(variant).not.toBe(signature);
    expect(Buffer.from(variant, 'base64url').equals(Buffer.from(signature, 'base64url'))).toBe(true);
    expectInvalidState(await retry(`${bodyOf(token)}.${variant}`));
  });
});

describe('other spellings of the signed part', () => {
  // The HMAC covers the body's text, so these never verified; they are refused before the HMAC is computed.
  test.each([
    ['"=" padding appended', (body: string) => `${body}=`],
    ['a stray "!"', (body: string) => withStray(body, '!')],
  ])('%s: -32602 Invalid requestState', async (_label, respell) => {
    expectInvalidState(await retry(`${respell(bodyOf(token))}.${signatureOf(token)}`));
  });
});

test('control: the untouched token completes the request', async () => {
  const reply = await retry(token);
  expect(reply.status).toBe(200);
  expect(textOf(resultOf(reply))).toBe('Hello, Alice!');
});
