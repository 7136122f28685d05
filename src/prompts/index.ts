/**
 * Prompts for the model. The text lives in the .md files of this folder (system prompt, index
 * titles, tool descriptions, and the templates of what the working view, the title request and the
 * agent loop write: `view.md`, `title-request.md`, `loop.md`); prompts.generated.ts carries them
 * into the compiled and bundled code.
 */
import { PROMPT_TEXTS } from './prompts.generated';

export function prompt(name: string): string {
  const text = PROMPT_TEXTS[name];
  if (text === undefined) throw new Error(`no prompt named ${JSON.stringify(name)} in src/prompts (have: ${Object.keys(PROMPT_TEXTS).join(', ')})`);
  return text.trim();
}

export const SYSTEM_PROMPT = (): string => prompt('system');
export const TITLE_PROMPT = (): string => prompt('title');
export const toolDescription = (tool: string): string => prompt(`tools/${tool}`);

const parsedTemplates = new Map<string, Readonly<Record<string, string>>>();

/**
 * The templates of a template file (`view`, `title-request`, `loop`): each `## name` heading and the
 * first fenced block after it, whose lines are the template exactly (nothing trimmed). Headings
 * inside a fenced block are part of the template.
 */
export function templates(file: string): Readonly<Record<string, string>> {
  let out = parsedTemplates.get(file);
  if (out) return out;
  const text = PROMPT_TEXTS[file];
  if (text === undefined) throw new Error(`no template file ${JSON.stringify(file)} in src/prompts`);
  const found: Record<string, string> = {};
  let name: string | null = null;
  let body: string[] | null = null;
  for (const line of text.split(/\r?\n/)) {
    if (body) {
      if (line.trimEnd() === '```') {
        if (name === null) throw new Error(`src/prompts/${file}.md: a fenced block outside a template`);
        found[name] = body.join('\n');
        name = null;
        body = null;
      } else body.push(line);
    } else if (line.startsWith('```')) {
      // A fence that does not follow a heading belongs to no template (the parse fails on its close).
      body = [];
    } else {
      const m = /^## ([\w-]+)\s*$/.exec(line);
      if (m) {
        if (m[1] in found || name !== null) throw new Error(`src/prompts/${file}.md: template ${JSON.stringify(m[1])} is defined twice or has no text`);
        name = m[1];
      }
    }
  }
  if (body) throw new Error(`src/prompts/${file}.md: a fenced block is not closed`);
  if (name !== null) throw new Error(`src/prompts/${file}.md: template ${JSON.stringify(name)} has no fenced block`);
  parsedTemplates.set(file, (out = Object.freeze(found)));
  return out;
}

/** One template of a template file; throws when it is not there. */
export function template(file: string, name: string): string {
  const t = templates(file)[name];
  if (t === undefined) throw new Error(`no template ${JSON.stringify(name)} in src/prompts/${file}.md`);
  return t;
}

/**
 * The template with each `{key}` replaced by `values[key]`, in one pass: text put in is never
 * itself filled. A `{key}` without a value throws (a misspelt placeholder must not reach the model).
 */
export function fill(tpl: string, values: Readonly<Record<string, string | number>>): string {
  return tpl.replace(/\{(\w+)\}/g, (_, key: string) => {
    const v = Object.hasOwn(values, key) ? values[key] : undefined;
    if (v === undefined) throw new Error(`the template ${JSON.stringify(tpl.slice(0, 60))} has {${key}} but no value for it`);
    return String(v);
  });
}
