/**
 * The one table of the tools Scroll's own agent offers its model, in the editor (`@scroll`, as
 * language-model tools) and in the CLI (`scroll chat`): one name, one input schema and one
 * description each. Descriptions are the files `src/prompts/tools/<name>.md`; package.json's
 * `languageModelTools` entries are generated from this table (`node scripts/sync-tool-manifest.mjs`,
 * held to it by test/unit/agent/toolTable.test.ts). The MCP server's tools are another surface,
 * with names of their own.
 */
import { toolDescription } from '../../prompts';
import { CAPTURE_SOURCES } from '../capture/types';
import type { ToolDefinition } from './model';

export const TOOL_NAMES = {
  exec: 'scroll_exec',
  searchHistory: 'scroll_searchHistory',
  expandEvent: 'scroll_expandEvent',
  readFile: 'scroll_readFile',
  listFiles: 'scroll_listFiles',
  searchText: 'scroll_searchText',
  editFile: 'scroll_editFile',
  runCommand: 'scroll_runCommand',
} as const;
export type ToolName = (typeof TOOL_NAMES)[keyof typeof TOOL_NAMES];

/**
 * Names (and input fields) the CLI's tools had before this table: logs written then still replay,
 * and a model that saw them there and calls one gets the tool it meant.
 */
export const LEGACY_TOOL_NAMES: Readonly<Record<string, ToolName>> = {
  read_file: TOOL_NAMES.readFile,
  list_files: TOOL_NAMES.listFiles,
  search_text: TOOL_NAMES.searchText,
  write_file: TOOL_NAMES.editFile,
  run_command: TOOL_NAMES.runCommand,
};

const LEGACY_FIELDS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  read_file: { start_line: 'startLine', end_line: 'endLine' },
  search_text: { pattern: 'query', regex: 'isRegex', max_results: 'max' },
  write_file: { content: 'newText' },
  run_command: { timeout_ms: 'timeoutMs' },
};

/** The tool a name means (a legacy name maps to today's), and its input in today's field names. */
export function canonicalCall(name: string, input: Record<string, unknown>): { name: string; input: Record<string, unknown> } {
  const renamed = LEGACY_TOOL_NAMES[name];
  if (!renamed) return { name, input };
  const fields = LEGACY_FIELDS[name] ?? {};
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(input)) out[fields[k] ?? k] = v;
  if (name === 'list_files') {
    // list_files took a folder and a recursive flag; scroll_listFiles takes a glob.
    const dir = typeof input.path === 'string' ? input.path.replace(/^\.?\/*|\/+$/g, '') : '';
    out.pattern = `${dir ? `${dir}/` : ''}${input.recursive === true ? '**/*' : '*'}`;
    delete out.path;
    delete out.recursive;
  }
  return { name: renamed, input: out };
}

type Schema = ToolDefinition['inputSchema'];

const SCHEMAS: Readonly<Record<ToolName, Schema>> = {
  [TOOL_NAMES.exec]: {
    type: 'object',
    properties: { code: { type: 'string', description: 'Python source to run. print() what you want to see.' } },
    required: ['code'],
  },
  [TOOL_NAMES.searchHistory]: {
    type: 'object',
    properties: {
      query: { type: 'string', description: 'Words to search for.' },
      k: { type: 'number', description: 'Maximum number of hits (default 10).' },
      kind: { type: 'string', description: 'Only this event kind, e.g. user_message, tool_result.' },
      session: { type: 'string', description: 'Only this session id.' },
      source: {
        type: 'string',
        enum: [...CAPTURE_SOURCES],
        description: "Only events captured from this agent's transcripts (Scroll's own events have no source).",
      },
    },
    required: ['query'],
  },
  [TOOL_NAMES.expandEvent]: {
    type: 'object',
    properties: { seq: { type: 'string', description: "A seq like '42' or a range like '40..45'." } },
    required: ['seq'],
  },
  [TOOL_NAMES.readFile]: {
    type: 'object',
    properties: {
      path: { type: 'string', description: 'File path relative to the workspace folder.' },
      startLine: { type: 'number', description: 'First line to read (1-based, default 1).' },
      endLine: { type: 'number', description: 'Last line to read (inclusive, default the last).' },
    },
    required: ['path'],
  },
  [TOOL_NAMES.listFiles]: {
    type: 'object',
    properties: {
      pattern: { type: 'string', description: 'Glob, e.g. src/**/*.py (default **/*).' },
      max: { type: 'number', description: 'Most paths to return (default 500).' },
    },
  },
  [TOOL_NAMES.searchText]: {
    type: 'object',
    properties: {
      query: { type: 'string', description: 'Text to find (case-insensitive), or a regular expression with isRegex.' },
      isRegex: { type: 'boolean', description: 'Treat query as a regular expression (RE2 syntax: no backreferences, no lookahead).' },
      include: { type: 'string', description: 'Glob of files to search (default **/*).' },
      max: { type: 'number', description: 'Most matching lines to return (default 100).' },
    },
    required: ['query'],
  },
  [TOOL_NAMES.editFile]: {
    type: 'object',
    properties: {
      path: { type: 'string', description: 'File path relative to the workspace folder.' },
      oldText: { type: 'string', description: 'Exact text to replace; must occur once. Omit to write newText as the whole file.' },
      newText: { type: 'string', description: 'The replacement, or the whole new file.' },
    },
    required: ['path', 'newText'],
  },
  [TOOL_NAMES.runCommand]: {
    type: 'object',
    properties: {
      command: { type: 'string', description: 'Shell command, run in the workspace folder.' },
      timeoutMs: { type: 'number', description: 'Kill it after this many milliseconds.' },
    },
    required: ['command'],
  },
};

/** A tool's name, description and input schema, as every host offers it. */
export function toolDefinition(name: ToolName): ToolDefinition {
  return { name, description: toolDescription(name), inputSchema: SCHEMAS[name] };
}

export const ALL_TOOL_NAMES: readonly ToolName[] = Object.values(TOOL_NAMES);

/** A `contributes.languageModelTools` entry of package.json (the fields the table owns, and the rest). */
export interface ManifestTool {
  name: string;
  modelDescription?: string;
  inputSchema?: Record<string, unknown>;
  [field: string]: unknown;
}

/**
 * package.json's tool entries with their model description and input schema taken from the table
 * (display names, icons, `when` clauses stay as written there). Every tool of the table must have
 * an entry; an entry the table does not know is an error.
 */
export function manifestTools(entries: readonly ManifestTool[]): ManifestTool[] {
  const known = new Set<string>(ALL_TOOL_NAMES);
  for (const e of entries) if (!known.has(e.name)) throw new Error(`package.json names a tool the tool table does not have: ${e.name}`);
  const missing = ALL_TOOL_NAMES.filter((n) => !entries.some((e) => e.name === n));
  if (missing.length) throw new Error(`package.json has no languageModelTools entry for ${missing.join(', ')}`);
  return entries.map((e) => {
    const d = toolDefinition(e.name as ToolName);
    return { ...e, modelDescription: d.description, inputSchema: d.inputSchema };
  });
}
