import { writeJson, UsageError, type Command } from '../command';
import { openForReading } from '../openLog';

export const command: Command = {
  name: 'stats',
  summary: 'events, sessions, bytes, payloads, schema version',
  usage: `usage: scroll stats [--db P] [--json]`,
  options: {},
  run(ctx) {
    if (ctx.positionals.length) throw new UsageError('stats takes no arguments');
    const log = openForReading(ctx);
    try {
      const s = log.stats();
      if (ctx.json) {
        writeJson(ctx.io, {
          events: s.events,
          sessions: s.sessions,
          bytes: s.bytes,
          payloads: s.payloads,
          payload_bytes: s.payloadBytes,
          schema_version: s.schemaVersion,
          max_seq: log.maxSeq(),
          driver: s.driver,
          path: s.path,
        });
      } else {
        ctx.io.stdout(
          [
            `log        ${s.path}`,
            `events     ${s.events} (seq 1..${log.maxSeq()})`,
            `sessions   ${s.sessions}`,
            `bytes      ${s.bytes} (database + WAL)`,
            `payloads   ${s.payloads} (${s.payloadBytes} bytes)`,
            `schema     v${s.schemaVersion}`,
            `driver     ${s.driver}`,
          ].join('\n') + '\n',
        );
      }
      return 0;
    } finally {
      log.close();
    }
  },
};
