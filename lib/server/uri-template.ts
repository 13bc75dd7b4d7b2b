/**
 * RFC 6570 URI templates, the subset resource templates use: simple `{var}`, reserved `{+var}`,
 * fragment `{#var}` and several variables in one template. Compiled once into a RegExp.
 */
export class UriTemplate {
  readonly template: string;
  readonly variableNames: readonly string[];
  private readonly pattern: RegExp;

  constructor(template: string) {
    this.template = template;
    const names: string[] = [];
    let source = '^';
    let last = 0;
    for (const match of template.matchAll(/\{([+#]?)([A-Za-z0-9_.,]+)\}/g)) {
      source += escapeRegExp(template.slice(last, match.index));
      const operator = match[1];
      for (const name of match[2].split(',')) names.push(name);
      const count = match[2].split(',').length;
      const one = operator === '' ? '([^/?#&,]*)' : '(.*?)';
      source += (operator === '#' ? '#' : '') + Array.from({ length: count }, () => one).join(',');
      last = match.index + match[0].length;
    }
    source += escapeRegExp(template.slice(last)) + '$';
    this.variableNames = names;
    this.pattern = new RegExp(source);
  }

  /** The variables of `uri`, decoded, or undefined when the URI does not fit the template. */
  match(uri: string): Record<string, string> | undefined {
    const found = this.pattern.exec(uri);
    if (!found) return undefined;
    const variables: Record<string, string> = {};
    this.variableNames.forEach((name, index) => {
      variables[name] = safeDecode(found[index + 1]);
    });
    return variables;
  }

  /** Fills the template; simple variables are percent-encoded, reserved ones are not. */
  expand(variables: Record<string, string>): string {
    return this.template.replace(/\{([+#]?)([A-Za-z0-9_.,]+)\}/g, (_all, operator: string, list: string) => {
      const values = list.split(',').map((name) => {
        const value = variables[name] ?? '';
        return operator === '' ? encodeURIComponent(value) : encodeURI(value);
      });
      return (operator === '#' ? '#' : '') + values.join(',');
    });
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
