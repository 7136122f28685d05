/** Request/response over postMessage, typed by the shared protocol. */
import type { HostMessage, PanelPush, RequestMap, RequestType } from '../../src/shared/panelProtocol';

export interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}

declare function acquireVsCodeApi(): VsCodeApi;

export const vscodeApi: VsCodeApi = acquireVsCodeApi();

type Pending = { resolve: (v: unknown) => void; reject: (e: Error) => void };

const REQUEST_TIMEOUT_MS = 60_000;

export class Rpc {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly pushListeners: ((m: PanelPush) => void)[] = [];

  constructor(private readonly api: VsCodeApi) {
    window.addEventListener('message', (ev: MessageEvent) => this.onMessage(ev.data as HostMessage));
  }

  request<K extends RequestType>(type: K, params: RequestMap[K]['params']): Promise<RequestMap[K]['result']> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        if (this.pending.delete(id)) reject(new Error(`the extension did not answer "${type}" in time`));
      }, REQUEST_TIMEOUT_MS);
      this.pending.set(id, {
        resolve: (v) => {
          clearTimeout(timer);
          resolve(v as RequestMap[K]['result']);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      this.api.postMessage({ ...params, type, id });
    });
  }

  onPush(listener: (m: PanelPush) => void): void {
    this.pushListeners.push(listener);
  }

  ready(): void {
    this.api.postMessage({ type: 'ready' });
  }

  private onMessage(m: HostMessage): void {
    if (!m || typeof m !== 'object') return;
    if (m.type === 'response') {
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      if (m.ok) p.resolve(m.result);
      else p.reject(new Error(m.error));
      return;
    }
    for (const l of this.pushListeners) l(m);
  }
}
