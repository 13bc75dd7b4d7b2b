/**
 * RFC 6570 URI templates, the subset resource templates use: simple `{var}`, reserved `{+var}`,
 * fragment `{#var}` and comma lists `{a,b}`, several expressions in one template.
 *
 * `match` must stay linear in the length of the URI, which a client chooses (`resources/read`), so it does not
 * use a backtracking RegExp. The template is compiled once into literal parts and variables; a URI is matched in
 * one left-to-right pass that carries every still-possible way of splitting it at once (at most one per position
 * in the compiled template, the preferred one kept), so the work is O(URI length × template length).
 *
 * The result is the same as the earlier RegExp form gave, `^literal(…)literal(…)…$`, where a simple variable
 * was `([^/?#&,]*)` (greedy: as long as it can be) and a reserved or fragment variable `(.*?)` (lazy: as short
 * as it can be, any character but a line terminator):
 * - the first literal must be a prefix of the URI and the last one (if the template ends with a literal) a suffix;
 * - a simple variable's value never contains `/ ? # & ,`, so it ends at the next such character;
 * - after a reserved variable the next literal is taken at its leftmost occurrence that lets the rest match;
 * - of adjacent variables without a literal between them, a simple one takes as much as it can and the next
 *   follows; a reserved one takes as little as the rest allows;
 * - `{#x}` adds a literal `#`, and a list `{a,b}` a literal `,` between its values.
 * Values are percent-decoded (`decodeURIComponent`); a value that does not decode is returned as it was.
 */
export class UriTemplate {
  readonly template: string;
  readonly variableNames: readonly string[];
  /** Literal text the URI must start with, and end with. */
  private readonly prefix: string;
  private readonly suffix: string;
  /** True when the template has no variables: only `template` itself matches. */
  private readonly literalOnly: boolean;
  /** The parts between `prefix` and `suffix`, compiled for the matcher. */
  private readonly program: Program;

  constructor(template: string) {
    this.template = template;
    const parts = parse(template);
    const names: string[] = [];
    for (const part of parts) if (part.kind === 'variable') names.push(part.name);
    this.variableNames = names;
    this.literalOnly = names.length === 0;
    let first = 0;
    let last = parts.length;
    this.prefix = '';
    this.suffix = '';
    if (!this.literalOnly) {
      const head = parts[0];
      const tail = parts[parts.length - 1];
      if (head.kind === 'literal') {
        this.prefix = head.text;
        first = 1;
      }
      if (tail.kind === 'literal') {
        this.suffix = tail.text;
        last = parts.length - 1;
      }
    }
    this.program = compile(parts.slice(first, last));
  }

  /** The variables of `uri`, decoded, or undefined when the URI does not fit the template. */
  match(uri: string): Record<string, string> | undefined {
    if (this.literalOnly) return uri === this.template ? {} : undefined;
    const start = this.prefix.length;
    const end = uri.length - this.suffix.length;
    if (end < start || !uri.startsWith(this.prefix) || !uri.endsWith(this.suffix)) return undefined;
    const bounds = run(this.program, uri, start, end);
    if (!bounds) return undefined;
    const variables: Record<string, string> = {};
    this.variableNames.forEach((name, index) => {
      variables[name] = safeDecode(uri.slice(bounds[2 * index], bounds[2 * index + 1]));
    });
    return variables;
  }

  /** Fills the template; simple variables are percent-encoded, reserved ones are not. */
  expand(variables: Record<string, string>): string {
    return this.template.replace(EXPRESSION, (_all, operator: string, list: string) => {
      const values = list.split(',').map((name) => {
        const value = variables[name] ?? '';
        return operator === '' ? encodeURIComponent(value) : encodeURI(value);
      });
      return (operator === '#' ? '#' : '') + values.join(',');
    });
  }
}

/** An expression: `{name}`, `{+name}`, `{#name}`, with a comma list of names. Anything else is literal text. */
const EXPRESSION = /\{([+#]?)([A-Za-z0-9_.,]+)\}/g;

type Part =
  | { kind: 'literal'; text: string }
  /** `index` is the variable's position in `variableNames`; `reserved` for the `+` and `#` operators. */
  | { kind: 'variable'; name: string; index: number; reserved: boolean };

/** Splits a template into literal text (adjacent pieces merged) and variables, in order. */
function parse(template: string): Part[] {
  const parts: Part[] = [];
  const literal = (text: string): void => {
    if (text === '') return;
    const previous = parts[parts.length - 1];
    if (previous?.kind === 'literal') previous.text += text;
    else parts.push({ kind: 'literal', text });
  };
  let index = 0;
  let last = 0;
  for (const expression of template.matchAll(EXPRESSION)) {
    literal(template.slice(last, expression.index));
    const operator = expression[1];
    if (operator === '#') literal('#');
    expression[2].split(',').forEach((name, position) => {
      if (position > 0) literal(',');
      parts.push({ kind: 'variable', name, index: index++, reserved: operator !== '' });
    });
    last = expression.index + expression[0].length;
  }
  literal(template.slice(last));
  return parts;
}

// The matcher is a Thompson-NFA simulation ("Pike VM"): a program of the instructions below, run over the URI
// once, with every live thread advanced one character at a time. Threads are kept in order of preference (the
// order a backtracking matcher would try them), and of two threads reaching the same instruction at the same
// position only the preferred one is kept, so the first thread to match is the one a backtracking matcher
// would have found, without ever going back.
const CHAR = 0; // match the character code `a`
const SIMPLE = 1; // match one character a simple variable may hold
const RESERVED = 2; // match one character a reserved variable may hold
const SPLIT = 3; // continue at `a`, or else at `b`
const JUMP = 4; // continue at `a`
const SAVE = 5; // record the position in bound `a`
const MATCH = 6; // success, if at the end

interface Program {
  op: Uint8Array;
  a: Int32Array;
  b: Int32Array;
  /** Number of bounds recorded: two per variable. */
  slots: number;
}

function compile(parts: Part[]): Program {
  const op: number[] = [];
  const a: number[] = [];
  const b: number[] = [];
  const emit = (code: number, first = 0, second = 0): number => {
    op.push(code);
    a.push(first);
    b.push(second);
    return op.length - 1;
  };
  let slots = 0;
  for (const part of parts) {
    if (part.kind === 'literal') {
      for (let i = 0; i < part.text.length; i++) emit(CHAR, part.text.charCodeAt(i));
      continue;
    }
    slots = Math.max(slots, 2 * part.index + 2);
    emit(SAVE, 2 * part.index);
    // loop: SPLIT body/exit; body: one character; JUMP loop; exit: SAVE end.
    const loop = emit(SPLIT);
    emit(part.reserved ? RESERVED : SIMPLE);
    emit(JUMP, loop);
    const exit = emit(SAVE, 2 * part.index + 1);
    // A simple variable prefers to go on (greedy), a reserved one prefers to stop (lazy).
    if (part.reserved) {
      a[loop] = exit;
      b[loop] = loop + 1;
    } else {
      a[loop] = loop + 1;
      b[loop] = exit;
    }
  }
  emit(MATCH);
  return { op: Uint8Array.from(op), a: Int32Array.from(a), b: Int32Array.from(b), slots };
}

interface Thread {
  pc: number;
  bounds: number[];
}

/** Runs `program` over `text[start, end)`; the bounds of the preferred match, or undefined. */
function run(program: Program, text: string, start: number, end: number): number[] | undefined {
  const { op, a, b } = program;
  // seen[pc] === generation: a thread already reached pc for the position being filled.
  const seen = new Int32Array(op.length).fill(-1);
  let generation = 0;

  const add = (list: Thread[], pc: number, bounds: number[], position: number): void => {
    if (seen[pc] === generation) return;
    seen[pc] = generation;
    switch (op[pc]) {
      case JUMP:
        add(list, a[pc], bounds, position);
        return;
      case SPLIT:
        add(list, a[pc], bounds, position);
        add(list, b[pc], bounds, position);
        return;
      case SAVE: {
        const saved = bounds.slice();
        saved[a[pc]] = position;
        add(list, pc + 1, saved, position);
        return;
      }
      default:
        list.push({ pc, bounds });
    }
  };

  let current: Thread[] = [];
  add(current, 0, new Array<number>(program.slots).fill(0), start);
  for (let position = start; ; position++) {
    if (current.length === 0) return undefined;
    if (position === end) {
      // The most preferred thread that has matched the whole text wins.
      for (const thread of current) if (op[thread.pc] === MATCH) return thread.bounds;
      return undefined;
    }
    const code = text.charCodeAt(position);
    const next: Thread[] = [];
    generation++;
    for (const thread of current) {
      const pc = thread.pc;
      let ok: boolean;
      switch (op[pc]) {
        case CHAR:
          ok = code === a[pc];
          break;
        case SIMPLE:
          ok = isSimple(code);
          break;
        case RESERVED:
          ok = isReserved(code);
          break;
        default:
          ok = false; // MATCH before the end
      }
      if (ok) add(next, pc + 1, thread.bounds, position + 1);
    }
    current = next;
  }
}

/** A character a simple `{var}` may hold: anything but `/ ? # & ,`. */
function isSimple(code: number): boolean {
  return code !== 0x2f && code !== 0x3f && code !== 0x23 && code !== 0x26 && code !== 0x2c;
}

/** A character a reserved `{+var}` or `{#var}` may hold: anything but a line terminator (as `.` was). */
function isReserved(code: number): boolean {
  return code !== 0x0a && code !== 0x0d && code !== 0x2028 && code !== 0x2029;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
