import { test } from 'node:test';
import assert from 'node:assert/strict';
import { panelCsp, panelHtml } from '../../../../src/vscode/panel/panelHtml';

test('panel HTML: strict CSP with a nonce, no inline code, only the bundle loaded', () => {
  const html = panelHtml({ cspSource: 'https://webview.test', scriptUri: 'https://webview.test/dist/webview.js', styleUri: 'https://webview.test/media/panel.css', nonce: 'N0nce' });
  const csp = /http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(html)?.[1];
  assert.ok(csp);
  assert.match(csp, /default-src 'none'/);
  assert.match(csp, /script-src 'nonce-N0nce'(;|$)/);
  assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|\*/);
  assert.match(html, /<script nonce="N0nce" src="https:\/\/webview.test\/dist\/webview.js"><\/script>/);
  assert.equal((html.match(/<script/g) ?? []).length, 1, 'one script tag, the bundle');
  assert.doesNotMatch(html, /\son[a-z]+=/i, 'no inline handlers');
});

test('panel CSP: a fresh nonce each time by default', () => {
  const a = panelHtml({ cspSource: 'x', scriptUri: 'x', styleUri: 'y' });
  const b = panelHtml({ cspSource: 'x', scriptUri: 'x', styleUri: 'y' });
  const nonce = (h: string) => /'nonce-([^']+)'/.exec(h)?.[1];
  assert.ok(nonce(a) && nonce(a)!.length >= 16);
  assert.notEqual(nonce(a), nonce(b));
  assert.equal(panelCsp('src', 'n').split('; ')[0], "default-src 'none'");
});
