/**
 * Which of the editor's tools (`vscode.lm.tools`: other extensions' and the user's MCP servers')
 * `@scroll` offers its model besides its own, decided without the editor (pure, unit-tested):
 * the tools the `scroll.chat.tools` setting allows by name or tag (`*`: all), plus those the user
 * attached to the request with `#`. Never Scroll's own tools a second time, and never the tools of
 * Scroll's own MCP server ("Scroll memory"): the model already has the memory through `ms`. Where an
 * offered tool does what one of Scroll's own does (read, list, search text, edit, run), the
 * editor's is preferred and Scroll's is left out; Scroll's remain when nothing else is there.
 */

export interface ToolInfoLike {
  name: string;
  description: string;
  tags: readonly string[];
  inputSchema?: object;
}

/** The editor's tools (VS Code's built-in agent tools, by name) that do what a Scroll tool does. */
export const EDITOR_EQUIVALENTS: Readonly<Record<string, readonly string[]>> = {
  scroll_readFile: ['copilot_readFile', 'read_file'],
  scroll_listFiles: ['copilot_listDirectory', 'list_dir'],
  scroll_searchText: ['copilot_findTextInFiles', 'grep_search'],
  scroll_editFile: ['copilot_replaceString', 'copilot_multiReplaceString', 'copilot_insertEdit', 'copilot_applyPatch', 'replace_string_in_file', 'insert_edit_into_file', 'apply_patch'],
  scroll_runCommand: ['copilot_runInTerminal', 'run_in_terminal'],
};

/** Names of tools that change files: their results get the edited files' new problems. */
export const EDIT_TOOL_NAME = /(^|_)(edit|replace|insert|apply_?patch|create_?file|write_?file|multi_?replace)/i;

export interface ToolboxChoice {
  /** Editor tools to offer, in `vscode.lm.tools` order. */
  offered: ToolInfoLike[];
  /** Scroll's tools left out, each with the editor tool that does its job. */
  replaced: Map<string, string>;
}

export function isOwnMcpTool(t: ToolInfoLike, ownMcpDescriptions: readonly string[]): boolean {
  const description = t.description.trim();
  return ownMcpDescriptions.some((d) => d.trim() === description) || /scroll[-_ ]?memory/i.test(t.name);
}

export function selectToolbox(opts: {
  available: readonly ToolInfoLike[];
  /** `scroll.chat.tools`: tool names, tags, or `*`. */
  allowed: readonly string[];
  /** Names of the tools attached to the request (`request.toolReferences`). */
  referenced: readonly string[];
  /** Scroll's own tool names (never offered twice). */
  own: readonly string[];
  /** Descriptions of the tools of `scroll mcp` (how its tools are known when the editor renames them). */
  ownMcpDescriptions: readonly string[];
}): ToolboxChoice {
  const own = new Set(opts.own);
  const allowed = new Set(opts.allowed.map((a) => a.trim()).filter(Boolean));
  const referenced = new Set(opts.referenced);
  const offered = opts.available.filter((t) => {
    if (own.has(t.name) || t.name.startsWith('scroll_') || isOwnMcpTool(t, opts.ownMcpDescriptions)) return false;
    return referenced.has(t.name) || allowed.has('*') || allowed.has(t.name) || t.tags.some((tag) => allowed.has(tag));
  });
  const names = new Set(offered.map((t) => t.name));
  const replaced = new Map<string, string>();
  for (const [scrollTool, equivalents] of Object.entries(EDITOR_EQUIVALENTS)) {
    const editor = equivalents.find((n) => names.has(n));
    if (editor && own.has(scrollTool)) replaced.set(scrollTool, editor);
  }
  return { offered, replaced };
}

/** Paths a tool call's input names as the files it changes (the common argument names of edit tools). */
export function editedPaths(input: Record<string, unknown>): string[] {
  const out: string[] = [];
  const take = (v: unknown) => {
    if (typeof v === 'string' && v.trim()) out.push(v.trim());
  };
  for (const key of ['path', 'filePath', 'file', 'uri', 'filepath', 'file_path']) take(input[key]);
  for (const key of ['files', 'filePaths', 'replacements', 'edits']) {
    const list = input[key];
    if (!Array.isArray(list)) continue;
    for (const item of list) {
      if (typeof item === 'string') take(item);
      else if (item && typeof item === 'object') for (const k of ['path', 'filePath', 'file', 'uri']) take((item as Record<string, unknown>)[k]);
    }
  }
  return [...new Set(out)];
}
