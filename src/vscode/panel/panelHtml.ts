/**
 * The panel's HTML shell. Pure (no `vscode`) so the CSP can be unit-tested. Logged text never
 * enters this string: the front end builds every node with `textContent`.
 */
import { randomBytes } from 'node:crypto';

export interface PanelHtmlParts {
  /** `webview.cspSource`. */
  cspSource: string;
  /** `asWebviewUri` of dist/webview.js and media/panel.css. */
  scriptUri: string;
  styleUri: string;
  nonce?: string;
}

export function makeNonce(): string {
  return randomBytes(18).toString('base64').replace(/[+/=]/g, '');
}

export function panelCsp(cspSource: string, nonce: string): string {
  return [
    "default-src 'none'",
    `img-src ${cspSource}`,
    `font-src ${cspSource}`,
    `style-src ${cspSource} 'nonce-${nonce}'`,
    `script-src 'nonce-${nonce}'`,
    "connect-src 'none'",
    "frame-src 'none'",
    "form-action 'none'",
    "base-uri 'none'",
  ].join('; ');
}

function attr(v: string): string {
  return v.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function panelHtml(parts: PanelHtmlParts): string {
  const nonce = parts.nonce ?? makeNonce();
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${attr(panelCsp(parts.cspSource, nonce))}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${attr(parts.styleUri)}" nonce="${nonce}">
<title>Scroll history</title>
</head>
<body>
<div id="app" aria-busy="true"><p class="boot">Loading Scroll history…</p></div>
<script nonce="${nonce}" src="${attr(parts.scriptUri)}"></script>
</body>
</html>`;
}
