/**
 * The panel's own small components. This is the one file that knows about
 * `@vscode/webview-ui-toolkit` (deprecated upstream, microsoft/vscode-webview-ui-toolkit#561): views
 * build buttons, text fields, dropdowns, badges and the progress ring through these functions, so
 * replacing the toolkit (e.g. with `@vscode-elements/elements`) changes this file and the CSS that
 * styles its tags, not the views. Two are not the toolkit's: the tab strip (plain buttons, so focus
 * and wrapping follow the panel's CSS) and the dropdown (a native `<select>`: the toolkit's
 * dropdown re-reads its options on `slotchange` after a rebuild and then selects by index, so the
 * scope dropdown showed another session, or "All sessions", while the panel stayed scoped).
 */
import {
  provideVSCodeDesignSystem,
  vsCodeBadge,
  vsCodeButton,
  vsCodeProgressRing,
  vsCodeTextField,
} from '@vscode/webview-ui-toolkit';
import { sourceDisplay } from '../../src/shared/sourceDisplay';
import { h } from './dom';

let registered = false;

/** Defines the toolkit's custom elements (once, before the first component is built). */
export function registerComponents(): void {
  if (registered) return;
  registered = true;
  provideVSCodeDesignSystem().register(
    vsCodeBadge(), vsCodeButton(), vsCodeProgressRing(), vsCodeTextField(),
  );
}

/** Value of a form control built here (text field, dropdown). */
export function valueOf(el: Element): string {
  return String((el as unknown as { value?: unknown }).value ?? '');
}

export function setValue(el: Element, v: string): void {
  (el as unknown as { value: string }).value = v;
}

export interface ButtonOptions {
  appearance?: 'primary' | 'secondary' | 'icon';
  ariaLabel?: string;
  title?: string;
  testId?: string;
}

/** A button (keyboard and theme handled by the toolkit). */
export function button(label: string, onClick: () => void, opts: ButtonOptions = {}): HTMLElement {
  const b = h('vscode-button', {
    appearance: opts.appearance ?? 'secondary',
    'aria-label': opts.ariaLabel ?? null,
    title: opts.title ?? null,
    'data-testid': opts.testId ?? null,
  }, label);
  b.addEventListener('click', (ev) => {
    ev.stopPropagation();
    onClick();
  });
  return b;
}

export interface TextFieldOptions {
  id: string;
  /** Visible label (above the field) and its accessible name. */
  label: string;
  placeholder?: string;
  value?: string;
  testId?: string;
  /** Accessible name when it should say more than the visible label. */
  ariaLabel?: string;
}

export function textField(opts: TextFieldOptions): HTMLElement {
  const tf = h('vscode-text-field', {
    id: opts.id,
    placeholder: opts.placeholder ?? null,
    'aria-label': opts.ariaLabel ?? opts.label,
    'data-testid': opts.testId ?? null,
  }, opts.label);
  if (opts.value) setValue(tf, opts.value);
  return tf;
}

export interface DropdownOption {
  value: string;
  label: string;
}

export interface DropdownOptions {
  id: string;
  ariaLabel: string;
  testId?: string;
  options: DropdownOption[];
  value?: string;
}

/** A dropdown: a native `<select>` styled with the theme's dropdown tokens (see the file comment). */
export function dropdown(opts: DropdownOptions): HTMLSelectElement {
  const dd = h('select', { id: opts.id, class: 'dropdown', 'aria-label': opts.ariaLabel, 'data-testid': opts.testId ?? null });
  setOptions(dd, opts.options, opts.value ?? '');
  return dd;
}

/** Replaces a dropdown's options and selects `value` (the first option when `value` is not among them). */
export function setOptions(dd: Element, options: DropdownOption[], value: string): void {
  const chosen = options.some((o) => o.value === value) ? value : (options[0]?.value ?? '');
  dd.replaceChildren(...options.map((o) => h('option', { value: o.value, title: o.label }, o.label)));
  (dd as HTMLSelectElement).value = chosen;
}

/**
 * Which agent a captured session or event came from: a neutral icon (media/sources/, picked by the
 * known source's icon name, never by the logged string) and the source's name as text and tooltip.
 */
export function sourceBadge(source: string): HTMLElement {
  const d = sourceDisplay(source);
  return h('span', { class: 'source', title: `Captured from ${d.label} (${source})`, 'data-source': source },
    h('span', { class: 'source-icon', 'data-icon': d.icon, 'aria-hidden': 'true' }),
    d.label);
}

export function badge(text: string, cls?: string): HTMLElement {
  return h('vscode-badge', { class: cls ?? null }, text);
}

export function progressRing(label: string): HTMLElement {
  return h('vscode-progress-ring', { class: 'ring', hidden: true, 'aria-label': label });
}

export interface TabDef<T extends string> {
  id: T;
  label: string;
  panel: HTMLElement;
}

/**
 * A tab strip (WAI-ARIA tabs: one tab stop, arrows/Home/End move, activation follows focus).
 * Tabs wrap onto a second line in a narrow panel instead of scrolling out of sight.
 */
export class Tabs<T extends string> {
  readonly element: HTMLElement;
  private readonly tabs = new Map<T, HTMLButtonElement>();
  private readonly panels = new Map<T, HTMLElement>();
  private current: T;

  constructor(defs: TabDef<T>[], active: T, private readonly onChange: (tab: T) => void, label: string) {
    this.current = active;
    const list = h('div', { class: 'tablist', role: 'tablist', 'aria-label': label });
    const panels: HTMLElement[] = [];
    for (const d of defs) {
      const tab = h('button', {
        type: 'button',
        class: 'tab',
        role: 'tab',
        id: `tab-${d.id}`,
        'aria-controls': `view-${d.id}`,
        'data-testid': `tab-${d.id}`,
      }, d.label);
      tab.addEventListener('click', () => this.select(d.id));
      tab.addEventListener('keydown', (ev) => this.onKey(ev, d.id));
      this.tabs.set(d.id, tab);
      list.appendChild(tab);
      const panel = h('div', { class: 'tabpanel', role: 'tabpanel', id: `view-${d.id}`, 'aria-labelledby': `tab-${d.id}` }, d.panel);
      this.panels.set(d.id, panel);
      panels.push(panel);
    }
    this.element = h('div', { class: 'tabs' }, list, ...panels);
    this.apply();
  }

  get active(): T {
    return this.current;
  }

  select(tab: T, focus = false): void {
    const changed = tab !== this.current;
    this.current = tab;
    this.apply();
    if (focus) this.tabs.get(tab)?.focus();
    if (changed) this.onChange(tab);
  }

  private apply(): void {
    for (const [id, tab] of this.tabs) {
      const on = id === this.current;
      tab.setAttribute('aria-selected', String(on));
      tab.tabIndex = on ? 0 : -1;
      this.panels.get(id)!.hidden = !on;
    }
  }

  private onKey(ev: KeyboardEvent, id: T): void {
    const ids = [...this.tabs.keys()];
    const i = ids.indexOf(id);
    let next: number;
    switch (ev.key) {
      case 'ArrowRight': next = (i + 1) % ids.length; break;
      case 'ArrowLeft': next = (i - 1 + ids.length) % ids.length; break;
      case 'Home': next = 0; break;
      case 'End': next = ids.length - 1; break;
      default: return;
    }
    ev.preventDefault();
    this.select(ids[next], true);
  }
}
