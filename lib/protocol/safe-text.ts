/** Longest rendering of a client-supplied value in an error message, in characters. */
const MAX_RENDERED_LENGTH = 200;

/**
 * A client-supplied value rendered for an error message. Never throws (`String({ toString: 1 })` does, and so
 * does a template literal over such a value), never calls anything the client sent, and stays short: strings
 * are cut at `max` characters, anything else is shown as JSON (or its type, when even that fails).
 */
export function describeValue(value: unknown, max = MAX_RENDERED_LENGTH): string {
  let text: string;
  if (typeof value === 'string') text = value;
  else if (value === undefined) text = 'undefined';
  else if (typeof value === 'number' || typeof value === 'boolean' || value === null) text = JSON.stringify(value);
  else {
    try {
      text = JSON.stringify(value) ?? typeof value;
    } catch {
      text = Array.isArray(value) ? 'an array' : `a value of type ${typeof value}`;
    }
  }
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** True when `key` is an own property of `record`: client strings never reach `constructor` or `__proto__`. */
export function hasOwn(record: object | undefined, key: string): boolean {
  return record !== undefined && Object.hasOwn(record, key);
}

/** `record[key]` when it is an own property, else undefined. */
export function ownValue<T>(record: Readonly<Record<string, T>> | undefined, key: string): T | undefined {
  return record !== undefined && Object.hasOwn(record, key) ? record[key] : undefined;
}
