// Opens a log for a benchmark: the real EventLog (out/src/core/log) when it loads; otherwise a
// database built with the same migrations and index text (no redaction or payload store), so the
// search code can still be measured while the log is being changed. Says which one it used.
import { createRequire } from 'node:module';
import { join } from 'node:path';

const require = createRequire(import.meta.url);

export function openBenchLog(root, dbPath, { direct = false } = {}) {
  const core = join(root, 'out', 'src', 'core');
  if (!direct) try {
    const { EventLog } = require(join(core, 'log', 'eventLog.js'));
    const log = EventLog.open({ path: dbPath });
    return { kind: 'EventLog', appendMany: (es) => log.appendMany(es), search: (q, o) => log.search(q, o), expand: (s) => log.expand(s), close: () => log.close(), database: log.database };
  } catch (err) {
    console.log(`(EventLog unavailable: ${err.message.split('\n')[0]} — using schema migrations + buildIndexDocument directly)`);
  }
  const Database = require('better-sqlite3');
  const { MIGRATIONS } = require(join(core, 'log', 'schema.js'));
  const { buildIndexDocument, searchEvents } = require(join(core, 'search', 'index.js'));
  const db = new Database(dbPath);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  for (const m of MIGRATIONS) db.exec(m.sql);
  const insEvent = db.prepare(`INSERT INTO events(session, kind, role, name, content, bytes, tokens, ts, headline, meta)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const insFts = db.prepare('INSERT INTO events_fts(rowid, body, code, parts, headline) VALUES (?, ?, ?, ?, ?)');
  const getEvents = db.prepare('SELECT * FROM events WHERE seq BETWEEN ? AND ?');
  return {
    kind: 'migrations',
    database: db,
    appendMany(es) {
      return db.transaction(() =>
        es.map((e) => {
          const seq = Number(insEvent.run(e.session ?? 'default', e.kind, e.role, e.name ?? null, e.content, Buffer.byteLength(e.content),
            Math.ceil(e.content.length / 4), e.ts ?? new Date().toISOString(), e.headline ?? null, JSON.stringify(e.meta ?? {})).lastInsertRowid);
          const d = buildIndexDocument(e.content, e.headline ?? null);
          insFts.run(seq, d.body, d.code, d.parts, d.headline);
          return { ...e, seq };
        }),
      )();
    },
    search: (q, o) => searchEvents(db, q, o),
    expand: (s) => (typeof s === 'number' ? getEvents.all(s, s) : getEvents.all(s.from, s.to)),
    close: () => db.close(),
  };
}
