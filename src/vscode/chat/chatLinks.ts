/**
 * Links from chat answers into the log: `seq 123` becomes a command link that opens the event tab.
 * Pure (no `vscode`): the participant trusts exactly the command used here.
 */
export const OPEN_EVENT_COMMAND = 'scroll.openEvent';

export function openEventLink(seq: number): string {
  return `command:${OPEN_EVENT_COMMAND}?${encodeURIComponent(JSON.stringify([seq]))}`;
}

export function openRangeLink(from: number, to: number): string {
  return `command:${OPEN_EVENT_COMMAND}?${encodeURIComponent(JSON.stringify([`${from}..${to}`]))}`;
}

/**
 * Turns `seq 123` and `seq 40..45` / `seq 40–45` in model text into links. Text inside code spans
 * and fences is left alone; so is text already inside a Markdown link.
 */
export function linkifySeqs(markdown: string): string {
  const parts = markdown.split(/(```[\s\S]*?```|`[^`\n]*`|\[[^\]\n]*\]\([^)\n]*\))/);
  return parts
    .map((part, i) => {
      if (i % 2 === 1) return part; // code or an existing link
      return part.replace(/\bseq(?:uence)?\s*#?(\d+)(?:\s*(?:\.\.|–|-)\s*(\d+))?\b/gi, (m, a: string, b?: string) =>
        b && Number(b) >= Number(a) ? `[${m}](${openRangeLink(Number(a), Number(b))})` : `[${m}](${openEventLink(Number(a))})`,
      );
    })
    .join('');
}

/**
 * Streams model text line by line so a `seq N` split across chunks is still linked: complete lines
 * go out at once, the unfinished tail waits for the next chunk (or `flush`). Fences are tracked so
 * nothing inside a code block is rewritten.
 */
export class SeqLinkStreamer {
  private pending = '';
  private inFence = false;

  constructor(private readonly emit: (markdown: string) => void) {}

  push(text: string): void {
    this.pending += text;
    const cut = this.pending.lastIndexOf('\n');
    if (cut < 0) return;
    const ready = this.pending.slice(0, cut + 1);
    this.pending = this.pending.slice(cut + 1);
    this.emitLines(ready);
  }

  flush(): void {
    if (this.pending) this.emitLines(this.pending);
    this.pending = '';
  }

  private emitLines(text: string): void {
    const out: string[] = [];
    for (const line of text.split(/(?<=\n)/)) {
      const fence = /^\s*(```|~~~)/.test(line);
      if (this.inFence || fence) out.push(line);
      else out.push(linkifySeqs(line));
      if (fence) this.inFence = !this.inFence;
    }
    this.emit(out.join(''));
  }
}

/** Compact list of seqs as ranges: [3,4,5,9] → "3–5, 9". */
export function seqRanges(seqs: number[]): Array<{ from: number; to: number }> {
  const sorted = [...new Set(seqs)].sort((a, b) => a - b);
  const out: Array<{ from: number; to: number }> = [];
  for (const s of sorted) {
    const last = out[out.length - 1];
    if (last && s === last.to + 1) last.to = s;
    else out.push({ from: s, to: s });
  }
  return out;
}
