/**
 * The attacks of the sandboxed-kernel issue as cells the model could write, and the snapshot of a
 * log they must leave unchanged. Shared by the unit layer (kernelAttacks.test.ts) and the in-host
 * test (test/host/suite/kernelAttacks.test.ts). Not a test file itself.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openDatabase } from '../../../src/core/db';

export interface Snapshot {
  rows: string;
  master: string;
  payloads: string[];
  triggers: string[];
}

export function snapshot(dbPath: string, payloadDir: string, maxSeq: number): Snapshot {
  const db = openDatabase(dbPath, { readonly: true });
  try {
    const rows = db.prepare('SELECT * FROM events WHERE seq <= ? ORDER BY seq').all(maxSeq);
    const master = db.prepare('SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name').all();
    const triggers = db.prepare("SELECT name FROM sqlite_master WHERE type = 'trigger' ORDER BY name").all() as { name: string }[];
    return { rows: JSON.stringify(rows), master: JSON.stringify(master), payloads: listFiles(payloadDir), triggers: triggers.map((t) => t.name) };
  } finally {
    db.close();
  }
}

/** path + sha256 of every file under dir. */
function listFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    if (!existsSync(d)) return;
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out.push(`${p} ${createHash('sha256').update(readFileSync(p)).digest('hex')}`);
    }
  };
  walk(dir);
  return out.sort();
}

export function processesMatching(marker: string): string[] {
  const r = spawnSync('pgrep', ['-af', marker], { encoding: 'utf8' });
  return (r.stdout || '').split('\n').filter((l) => l.trim() && !l.includes('pgrep'));
}

/** Cells that must fail in the sandbox; each prints OK only if the attack worked. */
export function attacks(ws: string, home: string, db: string, payloadDir: string, handle: string, hostPid: number, port: number): [string, string][] {
  const q = JSON.stringify;
  const payloadFile = join(payloadDir, handle.slice(0, 2), handle);
  return [
    ['write the workspace', `open(${q(join(ws, 'pwned.txt'))}, 'w').write('x'); print('OK')`],
    ['write $HOME', `open(${q(join(home, 'pwned.txt'))}, 'w').write('x'); print('OK')`],
    // /tmp inside is a private tmpfs: the write lands there, never in the host's /tmp (checked at the end).
    ['write the host /tmp', `open('/tmp/scroll-attack-pwned', 'w').write('x')\nprint('private /tmp')`],
    ['os.system writes the workspace', `import os\nos.system(${q(`echo x > ${join(ws, 'pwned2.txt')}`)})\nimport pathlib\nprint('OK' if pathlib.Path(${q(join(ws, 'pwned2.txt'))}).exists() else 'no')`],
    ['subprocess writes $HOME', `import subprocess\nsubprocess.run(['sh', '-c', ${q(`echo x > ${join(home, 'pwned3.txt')}`)}])\nimport os\nprint('OK' if os.path.exists(${q(join(home, 'pwned3.txt'))}) else 'no')`],
    ['loopback socket to a host server', `import socket\ns = socket.create_connection(('127.0.0.1', ${port}), timeout=2)\nprint('OK')`],
    ['socket beyond', `import socket\ns = socket.create_connection(('1.1.1.1', 53), timeout=2)\nprint('OK')`],
    ["the editor's environment through /proc/<ppid>", `print('OK', open('/proc/${hostPid}/environ').read()[:40])`],
    ['~/.ssh', `print('OK', open(${q(join(home, '.ssh', 'id_ed25519'))}).read())`],
    ['~/.aws', `print('OK', open(${q(join(home, '.aws', 'credentials'))}).read())`],
    ['workspace .env', `print('OK', open(${q(join(ws, '.env'))}).read())`],
    ['read the db file', `print('OK', len(open(${q(db)}, 'rb').read()))`],
    ['sqlite3 rw connection', `import sqlite3\nc = sqlite3.connect(${q(db)})\nc.execute("DROP TRIGGER events_no_delete")\nprint('OK')`],
    ['URI with mode=ro in a query parameter', `import sqlite3\nc = sqlite3.connect(${q(`file:${db}?mode=rw&x=mode=ro`)}, uri=True)\nc.execute("DELETE FROM events")\nc.commit()\nprint('OK')`],
    ['child Python writes the db', `import subprocess, sys\nr = subprocess.run([sys.executable, '-c', ${q(`import sqlite3; c=sqlite3.connect(${q(db)}); c.execute("UPDATE events SET content='x'"); c.commit()`)}])\nprint('OK' if r.returncode == 0 else 'no')`],
    ['ctypes open of a payload', `import ctypes, os\nlibc = ctypes.CDLL(None)\nfd = libc.open(${q(payloadFile)}.encode(), os.O_WRONLY | os.O_TRUNC)\nprint('OK' if fd >= 0 else 'no')`],
    ['os.open(dir_fd=) on payloads', `import os\nd = os.open(${q(join(payloadDir, handle.slice(0, 2)))}, os.O_RDONLY)\nos.open(${q(handle)}, os.O_WRONLY | os.O_TRUNC, dir_fd=d)\nprint('OK')`],
    ['os.remove(dir_fd=) on payloads', `import os\nd = os.open(${q(join(payloadDir, handle.slice(0, 2)))}, os.O_RDONLY)\nos.remove(${q(handle)}, dir_fd=d)\nprint('OK')`],
    ['hard link to the db', `import os\nos.link(${q(db)}, os.path.join(os.environ['TMPDIR'], 'db-link'))\nprint('OK')`],
    ['ms.sql PRAGMA query_only=0', `ms.sql("PRAGMA query_only=0")\nprint('OK')`],
    ['ms.sql ATTACH mode=rw', `ms.sql(${q(`ATTACH 'file:${db}?mode=rw' AS w`)})\nprint('OK')`],
    ['ms.sql INSERT RETURNING', `ms.sql("INSERT INTO events(session, kind, role, content, bytes, tokens, ts) VALUES ('x','note','u','x',1,1,'t') RETURNING seq")\nprint('OK')`],
    ['ms.sql drop a trigger', `ms.sql("DROP TRIGGER events_no_update")\nprint('OK')`],
    ['ms.sql rewrite the user message', `ms.sql("UPDATE events SET content = 'rewritten' WHERE kind = 'user_message'")\nprint('OK')`],
    ['ms.sql delete the kernel_exec events', `ms.sql("DELETE FROM events WHERE kind = 'kernel_exec'")\nprint('OK')`],
    ['ms.sql temp table', `ms.sql("CREATE TEMP TABLE t(x)")\nprint('OK')`],
    ['ms has no connection to abuse', `print('OK', ms._conn)`],
    ['pip install', `import subprocess, sys\nr = subprocess.run([sys.executable, '-m', 'pip', 'install', 'scroll-attack-not-a-real-package'], capture_output=True, text=True, timeout=20)\nprint('OK' if r.returncode == 0 else 'no: ' + (r.stderr or r.stdout).strip().splitlines()[-1][:120])`],
  ];
}

