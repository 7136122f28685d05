/**
 * The event log's SQLite schema and its migrations. The log is the source of truth; everything
 * else in the database (the FTS index) is derived and can be rebuilt from `events` (+ payloads).
 *
 * Readers outside TypeScript (kernel/scroll_ms.py, kernel/scroll_search.py) depend on these
 * table and column names; change them only with a migration and a matching Python change.
 */

export const SCHEMA_VERSION = 6;

/** Columns of the FTS5 index, in order. Weights for bm25() live in search/ranking. */
export const FTS_COLUMNS = ['body', 'code', 'parts', 'headline'] as const;

/**
 * Tokenizer for the FTS index. `_` is a token character so `user_id` is one token; its parts are
 * added to the `parts` column by the index-text builder, so both the whole and the parts match.
 */
export const FTS_TOKENIZE = "porter unicode61 remove_diacritics 2 tokenchars '_'";

/**
 * Bytes of new postings FTS5 buffers in memory before it writes them out as a segment (its
 * `hashsize`; the default is 1 MiB). Every commit writes the buffer out anyway, so this changes
 * nothing for the editor's small appends. A large transaction (bulk ingest, appendMany of many
 * events, an index rebuild) otherwise writes a small segment per MiB and spends its time merging
 * them; with the larger buffer a one-transaction ingest leaves one segment and its SQL is faster
 * (bench/search.bench.mjs, "same SQL, raw, one tx"; figures in docs/PERFORMANCE.md), for more
 * memory while it runs.
 * Set when a log is opened for writing (configureIndex in eventLog.ts), so older logs get it too.
 */
export const INDEX_BUFFER_BYTES = 32 * 1024 * 1024;

/**
 * The triggers that make `events` append-only, exactly as SQLite stores them in `sqlite_schema`
 * (it drops `IF NOT EXISTS`). `scroll check` reports one that is missing or altered, and any other
 * trigger (one could silently drop or change inserts); opening for writing restores them and
 * records what it found (an `integrity` event). A purge lifts them inside its own transaction.
 */
export const APPEND_ONLY_TRIGGERS: Readonly<Record<string, string>> = {
  events_no_update:
    "CREATE TRIGGER events_no_update BEFORE UPDATE ON events\nBEGIN SELECT RAISE(ABORT, 'scroll: the event log is append-only (UPDATE refused)'); END",
  events_no_delete:
    "CREATE TRIGGER events_no_delete BEFORE DELETE ON events\nBEGIN SELECT RAISE(ABORT, 'scroll: the event log is append-only (DELETE refused)'); END",
};

export const MIGRATIONS: ReadonlyArray<{ version: number; sql: string }> = [
  {
    version: 1,
    sql: `
CREATE TABLE IF NOT EXISTS scroll_meta(
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
);

-- AUTOINCREMENT: a seq is never reused, even after a rolled-back or torn write.
CREATE TABLE IF NOT EXISTS events(
  seq          INTEGER PRIMARY KEY AUTOINCREMENT,
  session      TEXT    NOT NULL,
  kind         TEXT    NOT NULL,
  role         TEXT    NOT NULL,
  name         TEXT,
  content      TEXT    NOT NULL,   -- full text, or a preview when payload IS NOT NULL
  payload      TEXT,               -- sha256 handle of the full content in the payload store
  bytes        INTEGER NOT NULL,   -- UTF-8 size of the full content
  tokens       INTEGER NOT NULL,   -- estimated tokens of the full content
  ts           TEXT    NOT NULL,   -- ISO 8601 UTC
  step         INTEGER,
  tool_call_id TEXT,
  parent_seq   INTEGER,
  headline     TEXT,
  meta         TEXT    NOT NULL DEFAULT '{}'
);
CREATE INDEX IF NOT EXISTS events_session_seq ON events(session, seq);
CREATE INDEX IF NOT EXISTS events_kind_seq ON events(kind, seq);
CREATE INDEX IF NOT EXISTS events_ts ON events(ts);

-- Append-only, enforced by SQLite itself, whoever the writer is (APPEND_ONLY_TRIGGERS below).
${Object.values(APPEND_ONLY_TRIGGERS).map((sql) => sql.replace('CREATE TRIGGER ', 'CREATE TRIGGER IF NOT EXISTS ') + ';').join('\n')}

-- Derived full-text index; rowid = events.seq. Contentless: the text lives in events/payloads.
CREATE VIRTUAL TABLE IF NOT EXISTS events_fts USING fts5(
  body, code, parts, headline,
  content = '',
  tokenize = "${"porter unicode61 remove_diacritics 2 tokenchars '_'"}"
);
CREATE VIRTUAL TABLE IF NOT EXISTS events_vocab USING fts5vocab(events_fts, 'row');
`,
  },
  {
    // The hash chain (src/core/log/chain.ts): each event's sha256 over its stored columns and the
    // previous event's hash. Rows from before this migration keep NULL; the event the migration
    // appends (EventLog.open, in the same transaction) covers them, and `chain_start` in
    // scroll_meta names it. `log_id` tells this log's head files from another log's.
    version: 2,
    sql: `
ALTER TABLE events ADD COLUMN hash TEXT;
INSERT OR IGNORE INTO scroll_meta(key, value) VALUES ('log_id', lower(hex(randomblob(16))));
`,
  },
  {
    // Captured transcripts of other agents (src/core/capture, docs/ARCHITECTURE.md "Capture").
    // capture_records: which source records are in the log. Its key decides, inside the transaction
    // that appends the event (INSERT OR IGNORE), whether a record is appended, so two capturers at
    // once append each record once. capture_cursors: how far each source file has been read (a
    // cache: both are rebuilt from the events' meta.capture). event_binaries: the binary payloads
    // (images) an event names in meta.binaries, so payload gc keeps them.
    version: 3,
    sql: `
CREATE TABLE IF NOT EXISTS capture_records(
  source    TEXT    NOT NULL,
  record_id TEXT    NOT NULL,
  seq       INTEGER NOT NULL,
  PRIMARY KEY(source, record_id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS capture_cursors(
  path     TEXT    PRIMARY KEY,
  source   TEXT    NOT NULL,
  offset   INTEGER NOT NULL,   -- bytes consumed: the end of the last complete line read
  line     INTEGER NOT NULL,   -- lines consumed
  size     INTEGER NOT NULL,   -- the file's size when last read
  mtime_ms REAL    NOT NULL,   -- the file's modification time when last read
  cwd      TEXT,               -- the session's working directory, when the source records one
  session  TEXT
);
CREATE TABLE IF NOT EXISTS event_binaries(
  seq        INTEGER NOT NULL,
  handle     TEXT    NOT NULL,
  media_type TEXT    NOT NULL,
  bytes      INTEGER NOT NULL,
  PRIMARY KEY(seq, handle)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS event_binaries_handle ON event_binaries(handle);
`,
  },
  {
    // Optional hybrid search (src/core/search/embeddings/): one vector per event and embedding
    // model, keyed by (seq, model); model first, so one model's vectors are one range. Derived:
    // filled from the stored (redacted) text, dropped and refilled at will. `text_hash` is the
    // sha256 of the text embedded, so an event whose text changed (a purge) is embedded again.
    version: 4,
    sql: `
CREATE TABLE IF NOT EXISTS event_vectors(
  model     TEXT    NOT NULL,
  seq       INTEGER NOT NULL,
  dims      INTEGER NOT NULL,
  vector    BLOB    NOT NULL,   -- dims little-endian float32, unit length
  text_hash TEXT    NOT NULL,
  PRIMARY KEY(model, seq)
) WITHOUT ROWID;
`,
  },
  {
    // The history panel, Search History and the MCP server list the sessions (first and last seq
    // and time, events, tokens) and the kinds and roles; reading those from the table reads every
    // row, content and all (a second or two at a GB, cold). With ts and tokens in the session index
    // and role in the kind index, the first listing on a connection reads the indexes only
    // (historyQueries.ts, bench/panel.bench.mjs). Same names and leading columns: every query and
    // `INDEXED BY` that used the narrower indexes uses these. Building them reads the table once.
    version: 5,
    sql: `
DROP INDEX IF EXISTS events_session_seq;
CREATE INDEX events_session_seq ON events(session, seq, ts, tokens);
DROP INDEX IF EXISTS events_kind_seq;
CREATE INDEX events_kind_seq ON events(kind, seq, role);
`,
  },
  {
    // A capture cursor can say a file was read with something in it left out because it was still
    // being written (a reply in progress, src/core/capture/types.ts SETTLED_AFTER_MS): the importer
    // reads such a file again once it has stopped changing, though its size and mtime are the same.
    // Files of the sources whose readers wait for a reply read before this version held back a reply in
    // progress without saying so: each is read once more when it has settled (its replies are recognised).
    version: 6,
    sql: `
ALTER TABLE capture_cursors ADD COLUMN waiting TEXT;  -- what was left out, or NULL
UPDATE capture_cursors SET waiting = 'a reply read before Scroll waited for settled files'
  WHERE source IN ('copilot-chat', 'cline', 'roo-code', 'kilo-code') AND offset > 0;
`,
  },
];
