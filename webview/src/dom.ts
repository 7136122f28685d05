/**
 * DOM building without markup: every string becomes a text node or an attribute value set through
 * the DOM API, so logged content (which may contain `<script>`, `onerror=`, `javascript:` …) is
 * displayed, never parsed. Nothing in the front end assigns innerHTML/outerHTML or inserts HTML.
 */
import { splitSnippet } from '../../src/shared/panelProtocol';

export type Child = Node | string | number | null | undefined | false;
export type Attrs = Record<string, string | number | boolean | null | undefined>;

/** Attributes that would let a string become code or a navigation; refused outright. */
const FORBIDDEN_ATTR = /^(on|href$|src$|srcdoc$|action$|formaction$|xlink:href$|style$)/i;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs?: Attrs | null, ...children: Child[]): HTMLElementTagNameMap[K];
export function h(tag: string, attrs?: Attrs | null, ...children: Child[]): HTMLElement;
export function h(tag: string, attrs?: Attrs | null, ...children: Child[]): HTMLElement {
  const el = document.createElement(tag);
  setAttrs(el, attrs);
  append(el, ...children);
  return el;
}

export function setAttrs(el: Element, attrs?: Attrs | null): void {
  if (!attrs) return;
  for (const [k, v] of Object.entries(attrs)) {
    if (FORBIDDEN_ATTR.test(k)) throw new Error(`refusing to set attribute ${k} from the panel's DOM helper`);
    if (v === null || v === undefined || v === false) el.removeAttribute(k);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
}

export function append(el: Node, ...children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    el.appendChild(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
  }
}

export function clear(el: Node): void {
  while (el.firstChild) el.removeChild(el.firstChild);
}

export function replaceChildren(el: Node, ...children: Child[]): void {
  clear(el);
  append(el, ...children);
}

const SVG_NS = 'http://www.w3.org/2000/svg';

export function svg(tag: string, attrs?: Record<string, string | number>, ...children: Child[]): SVGElement {
  const el = document.createElementNS(SVG_NS, tag);
  if (attrs) for (const [k, v] of Object.entries(attrs)) {
    if (FORBIDDEN_ATTR.test(k)) throw new Error(`refusing to set attribute ${k}`);
    el.setAttribute(k, String(v));
  }
  append(el, ...children);
  return el;
}

/** A snippet with its « » markers rendered as <mark> elements (text nodes inside). */
export function snippetNodes(snippet: string): DocumentFragment {
  const frag = document.createDocumentFragment();
  for (const part of splitSnippet(snippet)) {
    frag.appendChild(part.match ? h('mark', null, part.text) : document.createTextNode(part.text));
  }
  return frag;
}

export function formatTime(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

export function formatCount(n: number): string {
  return n.toLocaleString('en-US');
}

export function debounce<A extends unknown[]>(fn: (...a: A) => void, ms: number): ((...a: A) => void) & { cancel(): void; flush(): void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let last: A | undefined;
  const d = (...a: A) => {
    last = a;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      fn(...(last as A));
    }, ms);
  };
  d.cancel = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
  };
  d.flush = () => {
    if (timer) {
      clearTimeout(timer);
      timer = undefined;
      fn(...(last as A));
    }
  };
  return d;
}
