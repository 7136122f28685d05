// One seq-spec grammar (src/shared/seqSpec.ts) behind the panel's, the editor's and the CLI's parsers.
// The three grammars they had before are kept here as oracles: every form any of them accepted is
// accepted by each now, with the same answer wherever the old parser of that caller gave one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readSeqSpec } from '../../../src/shared/seqSpec';
import { parseSeqSpec as panelParse } from '../../../src/shared/panelProtocol';
import { parseSeqSpec as editorParse } from '../../../src/vscode/documents/eventMarkdown';
import { parseSeqSpec as cliParse } from '../../../src/cli/commands/show';

/** src/shared/panelProtocol.ts before. */
function oldPanel(text: string): { from: number; to: number } | null {
  const m = /^\s*#?(\d{1,15})\s*(?:(?:\.\.|-|–|—|to)\s*#?(\d{1,15}))?\s*$/i.exec(text);
  if (!m) return null;
  const from = Number(m[1]);
  const to = m[2] === undefined ? from : Number(m[2]);
  if (!Number.isSafeInteger(from) || !Number.isSafeInteger(to)) return null;
  return from <= to ? { from, to } : { from: to, to: from };
}

/** src/vscode/documents/eventMarkdown.ts before (then in src/vscode/history/): { seq } | { from, to }, or a thrown Error. */
function oldEditor(text: string): { seq: number } | { from: number; to: number } {
  const t = String(text ?? '').trim().replace(/^(seq\s*|#)/i, '');
  const one = /^(\d+)$/.exec(t);
  if (one) return { seq: Number(one[1]) };
  const range = /^(\d+)\s*(?:\.\.|-|–|:)\s*(\d+)$/.exec(t);
  if (range) {
    const a = Number(range[1]);
    const b = Number(range[2]);
    if (a > b) throw new Error(`"${text}": the range starts after it ends (write ${b}..${a})`);
    return { from: a, to: b };
  }
  throw new Error(`"${text}" is not a seq: write a number like 42 or a range like 40..45`);
}

/** src/cli/commands/show.ts before. */
function oldCli(spec: string): { from: number; to: number; single: boolean } {
  const m = /^\s*(\d+)\s*(?:\.\.\s*(\d+)\s*)?$/.exec(spec);
  if (!m) throw new Error(`expected SEQ or A..B (got "${spec}")`);
  const from = Number(m[1]);
  const to = m[2] === undefined ? from : Number(m[2]);
  if (!Number.isSafeInteger(from) || !Number.isSafeInteger(to)) throw new Error(`seq out of range: "${spec}"`);
  if (to < from) throw new Error(`empty range ${from}..${to} (the end is before the start)`);
  return { from, to, single: m[2] === undefined };
}

const attempt = <T>(f: () => T): T | Error => {
  try {
    return f();
  } catch (e) {
    return e as Error;
  }
};

/** Every form any of the three accepted, written the ways people and models type them, and the rest. */
const INPUTS = [
  '42', ' 42 ', '#42', ' #42 ', 'seq 42', 'seq42', 'SEQ 42', ' seq 7 ', 'Seq  9', '0', '007',
  '40..45', '40 .. 45', ' 40..45 ', '#40..60', ' #40..60 ', '#40..#60', '40-45', '40 - 45', '40–45', '40 – 45',
  '40—45', '40 — 45', '40:45', '40 : 45', '1 to 3', '1 TO 3', '1to3', '#1 to #3', 'seq 40..45', 'seq 40-45',
  '#40-45', '#40:45', '42..42', '45..40', '60 – 40', '45-40', '45:40', '3 to 1',
  '123456789012345', '1234567890123456', '9007199254740991', '9007199254740992', '99999999999999999999', '1..99999999999999999999',
  // never a seq
  '', ' ', 'abc', '1..', '..2', '-3', '1.5', '1,2', '1...2', '1 2', '#', 'seq', 'seq#5', '##5', '#seq 5', 'x42', '42x',
  '1..2..3', '1 to', 'to 3', '+5', '-', '١٢', '12\n13', '4 2',
];

test('every form any parser accepted before, each caller accepts now, with the same answer', () => {
  for (const text of INPUTS) {
    const reading = readSeqSpec(text);
    const before = { panel: oldPanel(text), editor: attempt(() => oldEditor(text)), cli: attempt(() => oldCli(text)) };
    const refusedOnlyAsBackwardsOrLarge = /starts after it ends|empty range|out of range/.test(`${before.editor} ${before.cli}`);
    const acceptedBefore = before.panel !== null || !(before.editor instanceof Error) || !(before.cli instanceof Error) || refusedOnlyAsBackwardsOrLarge;
    const unsafe = (text.match(/\d+/g) ?? []).some((d) => !Number.isSafeInteger(Number(d)));
    const now = { panel: panelParse(text), editor: attempt(() => editorParse(text)), cli: attempt(() => cliParse(text)) };

    // The answers every old parser gave still hold (a seq beyond 2^53 − 1 was read imprecisely by the editor's).
    if (before.panel !== null) assert.deepEqual(now.panel, before.panel, `panel ${JSON.stringify(text)}`);
    if (!(before.editor instanceof Error) && reading.ok) assert.deepEqual(now.editor, before.editor, `editor ${JSON.stringify(text)}`);
    if (!(before.cli instanceof Error)) assert.deepEqual(now.cli, before.cli, `cli ${JSON.stringify(text)}`);
    if (before.cli instanceof Error && /out of range/.test(before.cli.message)) assert.match(String((now.cli as Error).message), /out of range/);

    // The union: what one accepted, all accept (the editor and the CLI still refuse a backwards range, saying so).
    if (acceptedBefore && !unsafe) {
      assert.ok(reading.ok, `read ${JSON.stringify(text)}`);
      assert.notEqual(now.panel, null, `panel ${JSON.stringify(text)}`);
      if (reading.ok && reading.from > reading.to) {
        assert.match((now.editor as Error).message, /starts after it ends \(write \d+\.\.\d+\)/);
        assert.match((now.cli as Error).message, /empty range \d+\.\.\d+ \(the end is before the start\)/);
      } else {
        assert.ok(!(now.editor instanceof Error), `editor ${JSON.stringify(text)}: ${now.editor}`);
        assert.ok(!(now.cli instanceof Error), `cli ${JSON.stringify(text)}: ${now.cli}`);
      }
    }
    if (unsafe) assert.deepEqual(reading, { ok: false, reason: 'range' }, JSON.stringify(text));
    if (!acceptedBefore) {
      assert.deepEqual(reading, { ok: false, reason: 'syntax' }, `never a seq: ${JSON.stringify(text)}`);
      assert.equal(now.panel, null);
      assert.match((now.editor as Error).message, /not a seq/);
      assert.match((now.cli as Error).message, /expected SEQ or A\.\.B/);
    }
  }
});

test('readSeqSpec: from and to as written, single when one seq was written', () => {
  assert.deepEqual(readSeqSpec('42'), { ok: true, from: 42, to: 42, single: true });
  assert.deepEqual(readSeqSpec('42..42'), { ok: true, from: 42, to: 42, single: false });
  assert.deepEqual(readSeqSpec('#45 – #40'), { ok: true, from: 45, to: 40, single: false });
  assert.deepEqual(readSeqSpec('seq 3 to 9'), { ok: true, from: 3, to: 9, single: false });
  assert.deepEqual(readSeqSpec('9007199254740992'), { ok: false, reason: 'range' });
  assert.deepEqual(readSeqSpec('nope'), { ok: false, reason: 'syntax' });
  assert.deepEqual(readSeqSpec(undefined), { ok: false, reason: 'syntax' });
  assert.deepEqual(readSeqSpec(12), { ok: true, from: 12, to: 12, single: true });
});

test('each caller keeps its own answer to a range written backwards and to a seq too large', () => {
  assert.deepEqual(panelParse('45..40'), { from: 40, to: 45 });
  assert.throws(() => editorParse('45..40'), /starts after it ends \(write 40\.\.45\)/);
  assert.throws(() => cliParse('45..40'), /empty range 45\.\.40/);
  assert.equal(panelParse('99999999999999999999'), null);
  assert.throws(() => editorParse('99999999999999999999'), /at most 9007199254740991/);
  assert.throws(() => cliParse('99999999999999999999'), /seq out of range/);
  // 42..42 stays a range for the editor (a range document) and the CLI (not single).
  assert.deepEqual(editorParse('42..42'), { from: 42, to: 42 });
  assert.deepEqual(cliParse('42..42'), { from: 42, to: 42, single: false });
  assert.deepEqual(cliParse('#42'), { from: 42, to: 42, single: true });
});
