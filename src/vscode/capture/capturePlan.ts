/**
 * Which sources the editor captures, from the `scroll.capture.sources` setting and what was found:
 * `true` captures (and follows) a source, `false` leaves it alone, a source the setting does not name
 * is asked about once its transcripts are found (privacy: nothing is read before the user says yes).
 * Pure: the capture service (captureService.ts) does the I/O.
 */
import { CAPTURE_SOURCES, type CaptureSource } from '../../core/capture/types';

export type CaptureSetting = Partial<Record<CaptureSource, boolean>>;

export interface CapturePlan {
  /** Set to true: imported and followed (even with no files yet: they may appear). */
  capture: CaptureSource[];
  /** Found (files > 0) and not named by the setting: to ask about. */
  ask: CaptureSource[];
  /** Set to false: not read; what was captured before stays in the log. */
  off: CaptureSource[];
}

/** The setting's value as the editor hands it over, keeping only known sources with boolean values. */
export function readCaptureSetting(value: unknown): CaptureSetting {
  const out: CaptureSetting = {};
  if (!value || typeof value !== 'object' || Array.isArray(value)) return out;
  for (const source of CAPTURE_SOURCES) {
    const v = (value as Record<string, unknown>)[source];
    if (typeof v === 'boolean') out[source] = v;
  }
  return out;
}

/** `found`: files located per source (sources without a reader are absent). */
export function planCapture(setting: CaptureSetting, found: Partial<Record<CaptureSource, number>>): CapturePlan {
  const plan: CapturePlan = { capture: [], ask: [], off: [] };
  for (const source of CAPTURE_SOURCES) {
    if (found[source] === undefined) continue;
    if (setting[source] === true) plan.capture.push(source);
    else if (setting[source] === false) plan.off.push(source);
    else if ((found[source] ?? 0) > 0) plan.ask.push(source);
  }
  return plan;
}

/** The setting after an answer about `sources`: each set to `capture`, the others as they were. */
export function answered(setting: CaptureSetting, sources: readonly CaptureSource[], capture: boolean): CaptureSetting {
  const out: CaptureSetting = { ...setting };
  for (const s of sources) out[s] = capture;
  return out;
}

const LABELS: Record<CaptureSource, string> = {
  'claude-code': 'Claude Code',
  codex: 'Codex CLI',
  'copilot-chat': 'Copilot Chat (VS Code chat sessions)',
  cline: 'Cline',
  'roo-code': 'Roo Code',
  'kilo-code': 'Kilo Code',
  'gemini-cli': 'Gemini CLI',
};

export function sourceLabel(source: CaptureSource): string {
  return LABELS[source];
}

/** The first-run question: the sources found with their file counts, and what the answers do. */
export function askMessage(sources: readonly CaptureSource[], found: Partial<Record<CaptureSource, number>>): string {
  const list = sources.map((s) => `${LABELS[s]} (${found[s] ?? 0} file${found[s] === 1 ? '' : 's'})`).join(', ');
  return (
    `Scroll found transcripts of other agents: ${list}. Capture their sessions of this workspace into Scroll's history ` +
    `(secrets redacted) and follow them while the window is open? Only sessions whose working directory is in this ` +
    `workspace are captured. Turning a source off later (setting scroll.capture.sources) stops capturing it and keeps what was captured.`
  );
}
