/**
 * The one reader of seq specs: what a person or a model types for one event or an inclusive range,
 * in the panel's "Expand by seq", `/expand`, "Scroll: Open Event or Range…", the history tools and
 * `scroll show`. Pure, imports nothing (the panel front end uses it too). Each caller decides what
 * a range written backwards means (the panel turns it round; the editor and the CLI say so).
 *
 * Grammar (spaces allowed around every part, `seq` in any case):
 *
 *     spec  = [ "seq" | "#" ] seq [ sep [ "#" ] seq ]
 *     sep   = ".." | "-" | "–" | "—" | ":" | "to"
 *     seq   = one or more ASCII digits, at most 2^53 − 1
 *
 * e.g. `42`, `#42`, `seq 42`, `40..45`, `40-45`, `40 – 45`, `40—45`, `40:45`, `40 to 45`, `#40..#45`.
 */

export type SeqSpecReading =
  /** `from`/`to` as written (`to` may be below `from`); `single` when no second seq was written. */
  | { ok: true; from: number; to: number; single: boolean }
  /** `syntax`: not a seq or a range; `range`: a seq beyond 2^53 − 1. */
  | { ok: false; reason: 'syntax' | 'range' };

const SEQ_SPEC = /^\s*(?:seq\s*|#)?(\d+)\s*(?:(?:\.\.|-|–|—|:|to)\s*#?(\d+)\s*)?$/i;

export function readSeqSpec(text: unknown): SeqSpecReading {
  const m = SEQ_SPEC.exec(typeof text === 'string' ? text : String(text ?? ''));
  if (!m) return { ok: false, reason: 'syntax' };
  const from = Number(m[1]);
  const to = m[2] === undefined ? from : Number(m[2]);
  if (!Number.isSafeInteger(from) || !Number.isSafeInteger(to)) return { ok: false, reason: 'range' };
  return { ok: true, from, to, single: m[2] === undefined };
}
