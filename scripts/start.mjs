#!/usr/bin/env node
// `npm start`: try Scroll in a real editor. Builds the extension, installs the editor on demand
// (code-server = VS Code in the browser, on Node 24), seeds a copy of the sample workspace with an earlier
// agent session, installs Scroll into the editor's extensions folder, and serves it on 127.0.0.1 until Ctrl-C.
//
// usage: npm start [-- --port N] [--folder PATH] [--fresh] [--scripted-lm]
//   --port N        port on 127.0.0.1 (default 8321; 0 = any free port)
//   --folder PATH   open this folder instead of the sample workspace (its history is whatever it has)
//   --fresh         recreate the sample workspace copy and its seeded history
//   --scripted-lm   also install the scripted test model (vendor "scripted"); off by default: real use
//                   takes the editor's own models or Scroll's OpenAI-compatible provider
// State (profile, extensions folder, sample workspace copy) is kept under
// ${SCROLL_DEV_CACHE:-~/.cache/scroll-dev}/start/ so settings and history survive a restart.
import fs from 'node:fs';
import path from 'node:path';
import util from 'node:util';
import {
  buildExtension, cacheDir, ensureHost, extensionId, fixturesDir, installExtensions, prepareWorkspace, repoRoot,
  say, startCodeServer, tail, uninstallExtensions,
} from './host/lib.mjs';

const { values: opts } = util.parseArgs({
  options: {
    port: { type: 'string', default: process.env.SCROLL_START_PORT || '8321' },
    folder: { type: 'string' },
    fresh: { type: 'boolean', default: false },
    'scripted-lm': { type: 'boolean', default: false },
  },
});

async function main() {
  const port = Number(opts.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be a port number (got "${opts.port}")`);
  say('building the extension');
  buildExtension({ tsc: false });
  const host = ensureHost();

  const stateDir = path.join(cacheDir, 'start');
  fs.mkdirSync(stateDir, { recursive: true });
  let folder;
  if (opts.folder) {
    folder = path.resolve(opts.folder);
    if (!fs.statSync(folder, { throwIfNoEntry: false })?.isDirectory()) throw new Error(`--folder ${folder} is not a folder`);
  } else {
    folder = path.join(stateDir, 'sample-workspace');
    if (opts.fresh || !fs.existsSync(path.join(folder, '.scroll', 'scroll.db'))) {
      const seeded = prepareWorkspace(folder);
      say(`sample workspace ${folder}: seeded ${seeded.results.map((r) => `${r.appended} events from ${r.file}`).join(', ')}`);
    } else {
      say(`sample workspace ${folder} (kept; --fresh recreates it)`);
    }
  }

  // Scroll is installed like a user's extension (a link to this checkout, listed in extensions.json), so a
  // rebuild plus "Developer: Reload Window" picks up changes. Test fixtures stay out unless asked for.
  const extensionsDir = path.join(stateDir, 'extensions');
  const scriptedLm = path.join(fixturesDir, 'scripted-lm');
  installExtensions(extensionsDir, opts['scripted-lm'] ? [repoRoot, scriptedLm] : [repoRoot]);
  if (!opts['scripted-lm']) uninstallExtensions(extensionsDir, [extensionId(scriptedLm).id]);

  const server = await startCodeServer(host, { runDir: stateDir, extensionsDir, port: port || undefined });
  const url = `${server.url}/?folder=${encodeURIComponent(folder)}`;
  console.log(`
  Scroll is running in VS Code (code-server) at

      ${url}

  Open it in a browser. Try: Command Palette → "Scroll: Search History", "Scroll: Open History Panel",
  or the Chat view: "@scroll /search retry cap".${opts['scripted-lm'] ? '\n  Scripted test model installed (replays test scripts, no real answers): "Test: Scripted LM: Use in Chat" selects it.' : ''}
  A real chat needs a model that can call tools: Copilot's, or a local OpenAI-compatible server (Ollama,
  vLLM, llama.cpp) set in the settings scroll.openai.baseUrl and scroll.openai.model, then picked as
  "<model> (Scroll, OpenAI-compatible)". @scroll /search, /expand and /index need no model.
  Editor log: ${server.logFile}
  Ctrl-C stops it.
`);
  const exit = await server.exited;
  console.error(`code-server stopped (${JSON.stringify(exit)}); last lines of its log:\n${tail(server.logFile, 20)}`);
  return 1;
}

main().then(
  (code) => process.exit(code),
  (e) => {
    console.error(`npm start: ${e.message || e}`);
    process.exit(1);
  },
);
