/**
 * The test-runner globals the contract suites register their tests with. They are read from `globalThis` when a
 * suite is described, so this package needs no test framework: run the suites under jest (or any runner that
 * provides jest-style globals, e.g. vitest with `globals: true`).
 */

/** The few matchers the suites use (a subset of jest's `expect`). */
export interface Matchers<R> {
  toBe(expected: unknown): R;
  toEqual(expected: unknown): R;
  toBeUndefined(): R;
  toBeDefined(): R;
  toThrow(): R;
  readonly not: Matchers<R>;
  readonly resolves: Matchers<Promise<void>>;
  readonly rejects: Matchers<Promise<void>>;
}

type Body = () => void | Promise<void>;

export interface TestGlobals {
  describe(name: string, body: () => void): void;
  test(name: string, body: Body, timeout?: number): void;
  beforeEach(body: Body): void;
  afterEach(body: Body): void;
  expect(actual: unknown): Matchers<void>;
}

const NAMES = ['describe', 'test', 'beforeEach', 'afterEach', 'expect'] as const;

/** The runner's globals; throws a clear error outside a test run. */
export function testGlobals(): TestGlobals {
  const scope = globalThis as unknown as Partial<Record<(typeof NAMES)[number], unknown>>;
  const missing = NAMES.filter((name) => typeof scope[name] !== 'function');
  if (missing.length > 0) {
    throw new Error(
      `mcp-express/testing: the test globals ${missing.join(', ')} are not defined. Call the contract suites at the top level of a jest test file ` +
        '(or under a runner with jest-style globals, e.g. vitest with `globals: true`).',
    );
  }
  return scope as unknown as TestGlobals;
}
