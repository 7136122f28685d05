/**
 * Prompts for the model. The text lives in the .md files of this folder (system prompt, index
 * titles, tool descriptions); prompts.generated.ts carries them into the compiled and bundled code.
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
