/**
 * How a captured session's source (the agent whose transcript it came from: an event's meta.source)
 * is shown: its name, an icon in the panel (media/sources/<icon>.svg, neutral shapes drawn for Scroll,
 * no product logos) and a codicon in the editor's quick picks. Imports nothing: the panel front end
 * bundles it. A source this table does not know is shown by its own name with the generic icon.
 */

export interface SourceDisplay {
  /** The name shown beside the session and in tooltips. */
  label: string;
  /** File name (no extension) of the panel's icon under media/sources/. */
  icon: string;
  /** Codicon id for quick pick items (`$(id)` / ThemeIcon). */
  codicon: string;
}

export const SOURCE_DISPLAY: Readonly<Record<string, SourceDisplay>> = {
  'claude-code': { label: 'Claude Code', icon: 'terminal', codicon: 'terminal' },
  codex: { label: 'Codex CLI', icon: 'braces', codicon: 'json' },
  'copilot-chat': { label: 'Copilot Chat', icon: 'chat', codicon: 'comment-discussion' },
  cline: { label: 'Cline', icon: 'robot', codicon: 'robot' },
  'roo-code': { label: 'Roo Code', icon: 'bolt', codicon: 'zap' },
  'kilo-code': { label: 'Kilo Code', icon: 'box', codicon: 'package' },
  'gemini-cli': { label: 'Gemini CLI', icon: 'globe', codicon: 'globe' },
};

/** The icon of a source this table does not name. */
export const GENERIC_SOURCE_ICON = 'imported';

export function sourceDisplay(source: string): SourceDisplay {
  return Object.prototype.hasOwnProperty.call(SOURCE_DISPLAY, source)
    ? SOURCE_DISPLAY[source]
    : { label: source, icon: GENERIC_SOURCE_ICON, codicon: 'cloud-download' };
}
