// LoCoMo loading for the quality benchmark: one event per dialog turn, evidence parsing per
// ../shared/data/locomo/README.md (split on ';' and whitespace, "D30:05" is D30:5, unknown ids dropped).
import { readFileSync } from 'node:fs';

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];

/** "1:56 pm on 8 May, 2023" → "2023-05-08T13:56:00.000Z" (null when it does not parse). */
export function parseLocomoDate(s) {
  const m = /(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})/i.exec(String(s ?? ''));
  if (!m) return null;
  let hour = Number(m[1]) % 12;
  if (m[3].toLowerCase() === 'pm') hour += 12;
  const month = MONTHS.indexOf(m[5].toLowerCase());
  if (month < 0) return null;
  return new Date(Date.UTC(Number(m[6]), month, Number(m[4]), hour, Number(m[2]))).toISOString();
}

function normDiaId(id) {
  const m = /^D(\d+):(\d+)$/.exec(id.trim());
  return m ? `D${Number(m[1])}:${Number(m[2])}` : null;
}

/**
 * Returns { conversations: [{ id, turns: [{ diaId, speaker, text, caption, date, dateText, sessionNo }] }],
 *           questions: [{ conv, question, category, evidence: [diaId] }] } (only questions with evidence).
 */
export function loadLocomo(pathOrData) {
  const data = typeof pathOrData === 'string' ? JSON.parse(readFileSync(pathOrData, 'utf8')) : pathOrData;
  const conversations = [];
  const questions = [];
  let totalQuestions = 0;
  for (const sample of data) {
    const conv = sample.conversation;
    const turns = [];
    const sessionNos = Object.keys(conv)
      .map((k) => /^session_(\d+)$/.exec(k))
      .filter(Boolean)
      .map((m) => Number(m[1]))
      .sort((a, b) => a - b);
    for (const n of sessionNos) {
      const dateText = conv[`session_${n}_date_time`] ?? '';
      const date = parseLocomoDate(dateText);
      for (const t of conv[`session_${n}`] ?? []) {
        turns.push({ diaId: normDiaId(t.dia_id) ?? t.dia_id, speaker: t.speaker, text: t.text ?? '', caption: t.blip_caption ?? null, date, dateText, sessionNo: n });
      }
    }
    const ids = new Set(turns.map((t) => t.diaId));
    conversations.push({ id: sample.sample_id, turns });
    for (const qa of sample.qa ?? []) {
      totalQuestions++;
      const evidence = [...new Set((qa.evidence ?? []).flatMap((e) => String(e).split(/[;\s]+/)).map((e) => (e ? normDiaId(e) : null)).filter((e) => e && ids.has(e)))];
      if (evidence.length === 0) continue;
      questions.push({ conv: sample.sample_id, question: String(qa.question), category: qa.category, evidence });
    }
  }
  return { conversations, questions, totalQuestions };
}

/** Mean turn-level recall@k: the share of a question's evidence turns found in its top k. */
export function recallAt(results, k) {
  let sum = 0;
  for (const { evidence, ranked } of results) {
    const top = new Set(ranked.slice(0, k));
    sum += evidence.filter((e) => top.has(e)).length / evidence.length;
  }
  return results.length ? sum / results.length : 0;
}

/** Mean hit@k: the share of questions with any evidence turn in the top k. */
export function hitAt(results, k) {
  let n = 0;
  for (const { evidence, ranked } of results) if (ranked.slice(0, k).some((d) => evidence.includes(d))) n++;
  return results.length ? n / results.length : 0;
}

/** Mean reciprocal rank of the first evidence turn (0 when none is ranked). */
export function mrr(results) {
  let sum = 0;
  for (const { evidence, ranked } of results) {
    const i = ranked.findIndex((d) => evidence.includes(d));
    if (i >= 0) sum += 1 / (i + 1);
  }
  return results.length ? sum / results.length : 0;
}

/**
 * The two halves of ../shared/data/locomo/README.md: methods and constants are chosen on the
 * development half (the first five samples in file order); the held-out half is only reported.
 */
export const DEVELOPMENT_SAMPLES = ['conv-26', 'conv-30', 'conv-41', 'conv-42', 'conv-43'];
export function halfOf(conversationId) {
  return DEVELOPMENT_SAMPLES.includes(conversationId) ? 'development' : 'held-out';
}

/**
 * A tiny conversation in LoCoMo's format, for the smoke run (SCROLL_BENCH_SMOKE=1) where the dataset
 * is not installed (a fresh CI machine): two sessions, questions whose evidence shares words with them.
 */
export function smokeSample() {
  const turns = (n, lines) => lines.map(([speaker, text, caption], i) => ({ speaker, dia_id: `D${n}:${i + 1}`, text, ...(caption ? { blip_caption: caption } : {}) }));
  return [{
    sample_id: 'smoke-1',
    conversation: {
      speaker_a: 'Ada', speaker_b: 'Ben',
      session_1_date_time: '9:15 am on 3 March, 2024',
      session_1: turns(1, [
        ['Ada', 'Morning Ben! I finally adopted a dog from the shelter, a grey greyhound called Pixel.'],
        ['Ben', 'That is great news. My sister keeps bees on her allotment near the river.'],
        ['Ada', 'Pixel already loves the park by the old mill.', 'a grey dog running across a green park'],
        ['Ben', 'I started learning the cello last week; the teacher says my bowing is stiff.'],
        ['Ada', 'My team ships the new billing service on Friday, fingers crossed.'],
        ['Ben', 'Good luck with the launch!'],
      ]),
      session_2_date_time: '6:40 pm on 17 March, 2024',
      session_2: turns(2, [
        ['Ben', 'How did the billing launch go?'],
        ['Ada', 'It went smoothly, only one rollback for a timezone bug.'],
        ['Ben', 'The cello teacher gave me a harder piece, a Bach suite.'],
        ['Ada', 'Pixel learned to fetch a frisbee at the beach.', 'a dog jumping for a frisbee on the sand'],
        ['Ben', 'My sister sold her first jars of honey at the market.'],
      ]),
    },
    qa: [
      { question: 'What kind of dog did Ada adopt from the shelter?', answer: 'a greyhound', evidence: ['D1:1'], category: 1 },
      { question: 'Which instrument is Ben learning?', answer: 'the cello', evidence: ['D1:4', 'D2:3'], category: 1 },
      { question: 'When did Ada ship the billing service?', answer: 'Friday', evidence: ['D1:5'], category: 2 },
      { question: 'What caused the rollback after the launch?', answer: 'a timezone bug', evidence: ['D2:2'], category: 4 },
      { question: 'What does Ben\'s sister sell at the market?', answer: 'honey', evidence: ['D1:2; D2:5'], category: 4 },
      { question: 'What did Pixel learn at the beach?', answer: 'to fetch a frisbee', evidence: ['D2:4'], category: 4 },
    ],
  }];
}
