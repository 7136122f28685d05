/**
 * Test helper run as a child process (not a test itself): appends events to a log and prints
 * each committed seq on its own line, so the parent knows exactly what was committed.
 * argv: DB_PATH COUNT LABEL [BATCH]
 */
import { EventLog } from '../../../src/core/log/eventLog';

const [path, countArg, label, batchArg] = process.argv.slice(2);
const count = Number(countArg);
const batch = Number(batchArg ?? 1);
const log = EventLog.open({ path, session: label });
process.stdout.write(`ready\n`);
for (let i = 0; i < count; i += batch) {
  const events = Array.from({ length: Math.min(batch, count - i) }, (_, j) => ({
    kind: 'note',
    role: 'system',
    content: `${label} event ${i + j} ${'filler text for a realistic row size '.repeat(4)}`,
    meta: { writer: label, i: i + j },
  }));
  const appended = log.appendMany(events);
  process.stdout.write(appended.map((e) => `${e.seq}`).join('\n') + '\n');
}
log.close();
